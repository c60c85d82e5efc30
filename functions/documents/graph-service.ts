// Graphs and who may use them. `user:<id>` is its owner's alone; `group:<id>` is shared by its members, whom its
// owner adds and removes. Only a graph's owner or members may upload to, search, list or share into it; to everyone
// else it does not exist (NOT_FOUND), as the design asks for objects a caller may not see.
import type { Clock } from '#platform/clock.js';
import { isConditionFailure } from '#platform/dynamo.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '#platform/errors.js';
import type { Caller } from '#platform/caller.js';
import { newId } from '#platform/ids.js';
import { maxGroupMembers } from './limits.js';
import type { GraphStore, StoredGroup } from './graph-store.js';
import type { AccountDirectory } from './ports.js';
import type { GraphType, Role } from './schemas.js';

const personalName = 'Personal';

export const personalGraphId = (userId: string) => `user:${userId}`;
export const graphTypeOf = (graphId: string): GraphType => (graphId.startsWith('user:') ? 'personal' : 'group');

export function createGraphService(deps: { graphs: GraphStore; accounts: AccountDirectory; clock: Clock }) {
  const { graphs, accounts, clock } = deps;

  async function roleIn(userId: string, graphId: string): Promise<Role | undefined> {
    if (graphTypeOf(graphId) === 'personal') return graphId === personalGraphId(userId) ? 'owner' : undefined;
    return (await graphs.getMember(graphId, userId))?.role;
  }

  /** The caller's role in the graph; NOT_FOUND (on `field`) when the caller is neither its owner nor a member. */
  async function requireMember(caller: Caller, graphId: string, field = 'graphId'): Promise<Role> {
    const role = await roleIn(caller.userId, graphId);
    if (!role) throw new NotFoundError(field, graphId, 'graph');
    return role;
  }

  /**
   * Upload and share: the caller's role, where a `group:<id>` no one has named before becomes the caller's own group
   * (so a client that knows only the personal graph can still share into a group). An
   * existing group the caller is not in stays NOT_FOUND.
   */
  async function requireWritable(caller: Caller, graphId: string, field = 'graphId'): Promise<Role> {
    const role = await roleIn(caller.userId, graphId);
    if (role) return role;
    if (graphTypeOf(graphId) === 'group' && !(await graphs.getGroup(graphId))) {
      try {
        await graphs.createGroup({ graphId, graphName: graphId.slice('group:'.length), ownerId: caller.userId, createdAt: clock.now() });
        return 'owner';
      } catch (error) {
        // Someone else named it first: their group now, so the caller is checked like any non-member.
        if (!isConditionFailure(error)) throw error;
      }
    }
    return requireMember(caller, graphId, field);
  }

  function requireGroup(graphId: string) {
    if (graphTypeOf(graphId) === 'personal')
      throw new ValidationError('graphId', graphId, 'a personal graph has no members; create a group graph to share with others');
  }

  /** Type and name of each graph, for graph entries. */
  async function describe(graphIds: string[]): Promise<Map<string, { graphType: GraphType; graphName: string }>> {
    const groups = await graphs.getGroups(graphIds.filter((graphId) => graphTypeOf(graphId) === 'group'));
    const names = new Map(groups.map((group) => [group.graphId, group.graphName]));
    return new Map(
      graphIds.map((graphId) => {
        const graphType = graphTypeOf(graphId);
        return [graphId, { graphType, graphName: graphType === 'personal' ? personalName : (names.get(graphId) ?? graphId) }];
      }),
    );
  }

  const asGraph = (group: StoredGroup, role: Role) => ({
    graphId: group.graphId,
    graphType: 'group' as const,
    graphName: group.graphName,
    ownerId: group.ownerId,
    role,
    createdAt: group.createdAt,
  });

  const personal = (caller: Caller) => ({
    graphId: personalGraphId(caller.userId),
    graphType: 'personal' as const,
    graphName: personalName,
    ownerId: caller.userId,
    role: 'owner' as const,
    createdAt: null,
  });

  return {
    roleIn,
    requireMember,
    requireWritable,
    describe,

    async createGroup(caller: Caller, name: string) {
      const group: StoredGroup = { graphId: `group:${newId('grp')}`, graphName: name, ownerId: caller.userId, createdAt: clock.now() };
      await graphs.createGroup(group);
      return asGraph(group, 'owner');
    },

    /** The caller's personal graph first, then the groups they belong to, by name. */
    async list(caller: Caller) {
      const memberships = await graphs.groupsOf(caller.userId);
      const roles = new Map(memberships.map((member) => [member.graphId, member.role]));
      const groups = (await graphs.getGroups([...roles.keys()])).sort((a, b) => a.graphName.localeCompare(b.graphName));
      const list = [personal(caller), ...groups.map((group) => asGraph(group, roles.get(group.graphId)!))];
      return { graphs: list, count: list.length };
    },

    async get(caller: Caller, graphId: string) {
      const role = await requireMember(caller, graphId);
      if (graphTypeOf(graphId) === 'personal') return { ...personal(caller), members: [{ userId: caller.userId, role, addedAt: 0 }] };
      const [group, members] = await Promise.all([graphs.getGroup(graphId), graphs.listMembers(graphId)]);
      if (!group) throw new NotFoundError('graphId', graphId, 'graph');
      return { ...asGraph(group, role), members: members.map(({ userId, role: memberRole, addedAt }) => ({ userId, role: memberRole, addedAt })) };
    },

    async addMember(caller: Caller, graphId: string, userId: string) {
      requireGroup(graphId);
      const role = await requireMember(caller, graphId);
      if (role !== 'owner') throw new ForbiddenError(`only the owner of ${graphId} adds members`);
      if (!(await accounts.exists(userId))) throw new NotFoundError('userId', userId, 'user');
      if ((await graphs.listMembers(graphId)).length >= maxGroupMembers) throw new ConflictError(`a group graph holds at most ${maxGroupMembers} members`);
      const member = { graphId, userId, role: 'member' as const, addedAt: clock.now() };
      try {
        await graphs.addMember(member);
      } catch (error) {
        if (isConditionFailure(error)) throw new ConflictError(`user ${userId} is already a member of ${graphId}`, { userId });
        throw error;
      }
      return member;
    },

    /** The owner removes anyone but themselves; a member may leave. */
    async removeMember(caller: Caller, graphId: string, userId: string) {
      requireGroup(graphId);
      const role = await requireMember(caller, graphId);
      const target = await graphs.getMember(graphId, userId);
      if (!target) throw new NotFoundError('userId', userId, 'member');
      if (target.role === 'owner') throw new ConflictError(`the owner cannot leave ${graphId}`);
      if (role !== 'owner' && userId !== caller.userId) throw new ForbiddenError(`only the owner of ${graphId} removes other members`);
      try {
        await graphs.removeMember(graphId, userId);
      } catch (error) {
        if (isConditionFailure(error)) throw new NotFoundError('userId', userId, 'member');
        throw error;
      }
      return `user ${userId} removed from ${graphId}`;
    },
  };
}

export type GraphService = ReturnType<typeof createGraphService>;

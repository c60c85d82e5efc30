// DynamoDB access for the reference counts of installed dependency trees (dependencies.ts): one scriptCounters item
// per lock hash, `tree#<lockHash>`, with `refs` (versions using the tree), `collecting` (when a removal of the
// unused tree began) and `pinned` (a tree stored before counting began: never removed).
import { DeleteCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName, unlessConditionFails } from '#platform/dynamo.js';

/** `new`: no count existed (the first holder, or a tree stored before counting); `collecting`: being removed, not held. */
export type HoldResult = 'held' | 'new' | 'collecting';

const keyOf = (lockHash: string) => ({ counter: `tree#${lockHash}` });

export function createTreeRefStore() {
  const db = dynamo();
  const table = () => tableName('scriptCounters');
  /** An update of the tree's count; undefined when its condition did not hold. */
  const update = (lockHash: string, input: Omit<UpdateCommandInput, 'TableName' | 'Key'>) =>
    unlessConditionFails(db.send(new UpdateCommand({ TableName: table(), Key: keyOf(lockHash), ...input })));

  return {
    /** One more version uses the tree, unless its removal is under way; a removal begun before `staleBefore` died and is taken over. */
    async hold(lockHash: string, staleBefore: string): Promise<HoldResult> {
      const held = await update(lockHash, {
        UpdateExpression: 'SET refs = if_not_exists(refs, :zero) + :one REMOVE collecting',
        ConditionExpression: 'attribute_not_exists(collecting) OR collecting < :staleBefore',
        ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':staleBefore': staleBefore },
        ReturnValues: 'UPDATED_OLD',
      });
      if (!held) return 'collecting';
      return held.Attributes?.refs === undefined ? 'new' : 'held';
    },

    async pin(lockHash: string): Promise<void> {
      await db.send(
        new UpdateCommand({ TableName: table(), Key: keyOf(lockHash), UpdateExpression: 'SET pinned = :yes', ExpressionAttributeValues: { ':yes': true } }),
      );
    },

    /** `count` fewer versions use the tree; true when none does any more and it may be removed. A tree never counted stays. */
    async release(lockHash: string, count: number): Promise<boolean> {
      const counted = await update(lockHash, {
        UpdateExpression: 'ADD refs :minus',
        ConditionExpression: 'attribute_exists(refs)',
        ExpressionAttributeValues: { ':minus': -count },
        ReturnValues: 'ALL_NEW',
      });
      return counted !== undefined && (counted.Attributes?.refs as number) <= 0 && counted.Attributes?.pinned !== true;
    },

    /** Claims the removal of an unused tree; false when a version holds it again, or someone else removes it. */
    markCollecting: async (lockHash: string, at: string) =>
      (await update(lockHash, {
        UpdateExpression: 'SET collecting = :at',
        ConditionExpression: 'refs <= :zero AND attribute_not_exists(collecting) AND attribute_not_exists(pinned)',
        ExpressionAttributeValues: { ':at': at, ':zero': 0 },
      })) !== undefined,

    /** Drops the count once its tree is gone, unless a holder took the stale removal over meanwhile. */
    async forget(lockHash: string, collectingAt: string): Promise<void> {
      await unlessConditionFails(
        db.send(
          new DeleteCommand({
            TableName: table(),
            Key: keyOf(lockHash),
            ConditionExpression: 'collecting = :at',
            ExpressionAttributeValues: { ':at': collectingAt },
          }),
        ),
      );
    },
  };
}

export type TreeRefStore = ReturnType<typeof createTreeRefStore>;

// A run's checkpoints as a timeline nests them (the console's and `platform runs get`'s): a map's or parallel's branch checkpoints (`<name>/<index>/<inner>`)
// go under their entry (`<name>`), one branch per index (`<name>/<index>`, its result entry) in index order, and a
// branch's own inner checkpoints are grouped the same way, so a map inside a branch nests once more. Pure: no DOM.
/** What grouping reads of a step entry of a run (GET /api/sdk/v1/executions/{executionId}'s `steps[]`). */
export interface NamedStep {
  name: string;
  type: string;
}

export interface StepRow<S extends NamedStep> {
  /** The checkpoint; a map whose entry is not written yet (it is written as it ends) gets one of status running. */
  step: S;
  /** The name within its branch (the full name at the top). */
  label: string;
  branches?: BranchRow<S>[];
}

export interface BranchRow<S extends NamedStep> {
  index: number;
  /** `<name>/<index>`. */
  name: string;
  /** The branch's result entry, once the branch has ended. */
  step?: S;
  rows: StepRow<S>[];
}

const fanOut = new Set(['map', 'parallel']);
/** The step type of a map's entry not written yet, whose kind (map or parallel) its branches do not tell. */
export const unwrittenFanOut = 'branches';
/** A branch checkpoint whose map entry is not known yet: `<name>/<index>/<inner>`. */
const branchCheckpoint = /^(.+?)\/(\d+)\/(.+)$/;

interface Placed {
  group: string;
  index: number;
  /** The name inside the branch; none for the branch's own result entry. */
  inner?: string;
}

/**
 * Where a checkpoint named `name` stands, when it belongs to a branch: of the first known group (shortest first: an outer
 * map before a map inside its branches) it extends by `/<index>`, or of the group its name shows.
 */
function placeOf(name: string, groups: string[]): Placed | undefined {
  for (const group of groups) {
    if (!name.startsWith(`${group}/`)) continue;
    const match = /^(\d+)(?:\/(.+))?$/.exec(name.slice(group.length + 1));
    if (match) return { group, index: Number(match[1]), ...(match[2] !== undefined && { inner: match[2] }) };
  }
  const match = branchCheckpoint.exec(name);
  return match ? { group: match[1]!, index: Number(match[2]), inner: match[3]! } : undefined;
}

/** `steps` in the order the run reached them, nested under their map or parallel entries. */
export function groupSteps<S extends NamedStep>(steps: S[], prefix = ''): StepRow<S>[] {
  const relative = (step: S) => String(step.name).slice(prefix.length);
  const groups = steps
    .filter((step) => fanOut.has(step.type))
    .map(relative)
    .sort((a, b) => a.length - b.length);
  const rows: StepRow<S>[] = [];
  const grouped = new Map<string, { row: StepRow<S>; branches: Map<number, BranchRow<S> & { inner: S[] }> }>();
  const groupRow = (group: string) => {
    let found = grouped.get(group);
    if (!found) {
      const unwritten = { name: `${prefix}${group}`, type: unwrittenFanOut, status: 'running' } as NamedStep as S;
      found = { row: { step: unwritten, label: group }, branches: new Map() };
      grouped.set(group, found);
      rows.push(found.row);
    }
    return found;
  };
  for (const step of steps) {
    const name = relative(step);
    const placed = placeOf(name, groups);
    if (placed) {
      const { branches } = groupRow(placed.group);
      let branch = branches.get(placed.index);
      if (!branch) {
        branch = { index: placed.index, name: `${prefix}${placed.group}/${placed.index}`, rows: [], inner: [] };
        branches.set(placed.index, branch);
      }
      if (placed.inner === undefined) branch.step = step;
      else branch.inner.push(step);
    } else if (fanOut.has(step.type)) groupRow(name).row.step = step;
    else rows.push({ step, label: name });
  }
  for (const { row, branches } of grouped.values())
    row.branches = [...branches.values()]
      .sort((a, b) => a.index - b.index)
      .map(({ inner, ...branch }) => ({ ...branch, rows: groupSteps(inner, `${branch.name}/`) }));
  return rows;
}

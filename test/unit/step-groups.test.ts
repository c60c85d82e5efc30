// The timeline's nesting (console and CLI) of a run's checkpoints: map and parallel branches under their entry, in index order, a map
// inside a branch nested once more, and a running map (its entry not written yet) still grouped.
import { describe, expect, it } from 'vitest';
import { type StepRow, groupSteps } from '../../clients/typescript/src/step-groups.js';

const step = (name: string, type = 'step') => ({ name, type, status: 'succeeded' });
/** Each row as `label` with its branches' names and their rows, for comparing shapes. */
const shape = (rows: StepRow<ReturnType<typeof step>>[]): unknown[] =>
  rows.map((row) =>
    row.branches ? { [row.label]: row.branches.map((branch) => ({ [branch.name]: { ended: Boolean(branch.step), rows: shape(branch.rows) } })) } : row.label,
  );

describe('console: grouping steps into branches', () => {
  it('puts each branch of a map under its entry, in index order, the steps around it at the top', () => {
    // Act
    const rows = groupSteps([
      step('load'),
      step('prices/1/fetch'),
      step('prices/0/fetch'),
      step('prices/1'),
      step('prices/0'),
      step('prices', 'map'),
      step('notify', 'invoke'),
    ]);
    // Assess
    expect(shape(rows)).toEqual([
      'load',
      { prices: [{ 'prices/0': { ended: true, rows: ['fetch'] } }, { 'prices/1': { ended: true, rows: ['fetch'] } }] },
      'notify',
    ]);
    expect(rows[1]!.step).toMatchObject({ name: 'prices', type: 'map' });
    expect(rows[1]!.branches![0]!.rows[0]!.step.name).toBe('prices/0/fetch');
  });

  it('nests a parallel inside a map branch, and keeps step names with slashes that are no branch', () => {
    // Act
    const rows = groupSteps([
      step('orders/0/checks/0/fraud'),
      step('orders/0/checks/1/stock'),
      step('orders/0/checks', 'parallel'),
      step('orders/0'),
      step('orders', 'map'),
      step('reports/may'),
    ]);
    // Assess
    expect(shape(rows)).toEqual([
      {
        orders: [
          {
            'orders/0': {
              ended: true,
              rows: [{ checks: [{ 'orders/0/checks/0': { ended: false, rows: ['fraud'] } }, { 'orders/0/checks/1': { ended: false, rows: ['stock'] } }] }],
            },
          },
        ],
      },
      'reports/may',
    ]);
  });

  it('groups the branches of a map still running, before its entry is written', () => {
    // Act
    const rows = groupSteps([step('first'), step('batch/0/work'), step('batch/2/work')]);
    // Assess
    expect(shape(rows)).toEqual(['first', { batch: [{ 'batch/0': { ended: false, rows: ['work'] } }, { 'batch/2': { ended: false, rows: ['work'] } }] }]);
    expect(rows[1]!.step).toMatchObject({ name: 'batch', status: 'running' });
  });
});

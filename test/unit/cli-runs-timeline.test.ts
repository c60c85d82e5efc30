// `platform runs get`: a run's steps as a timeline, branches of a map indented under it, child runs named by id.
import { describe, expect, it } from 'vitest';
import { timeline } from '../../clients/cli/commands/runs.js';

describe('runs get: the step timeline', () => {
  it('indents branch checkpoints under their map and names child runs', () => {
    // Prepare
    const steps = [
      { name: 'fan/0/call', type: 'step', status: 'succeeded' },
      { name: 'fan/0', type: 'step', status: 'succeeded' },
      { name: 'fan', type: 'map', status: 'succeeded' },
      { name: 'child', type: 'invoke', status: 'waiting', childExecutionId: 'exe_child' },
    ];
    // Act
    const lines = timeline(steps);
    // Assess
    expect(lines).toEqual([
      '    fan/0/call [step] succeeded',
      '    fan/0 [step] succeeded',
      '  fan [map] succeeded',
      '  child [invoke] waiting -> child run exe_child',
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { updateExpression } from '../../functions/platform/update-expression.js';

describe('platform: updateExpression', () => {
  it('sets defined fields and removes named paths through placeholders', () => {
    // Act
    const parts = updateExpression({ status: 'paused', skipped: undefined }, ['token', ['runs', 'exe_1']]);
    // Assess
    expect(parts.expression).toBe('SET #s0 = :s0 REMOVE #r0_0, #r1_0.#r1_1');
    expect(parts.names).toEqual({ '#s0': 'status', '#r0_0': 'token', '#r1_0': 'runs', '#r1_1': 'exe_1' });
    expect(parts.values).toEqual({ ':s0': 'paused' });
  });

  it('removes undefined fields when asked, and gives no values when nothing is set', () => {
    // Act
    const parts = updateExpression({ deployedAt: undefined }, [], { removeUndefined: true });
    // Assess
    expect(parts.expression).toBe('REMOVE #r0_0');
    expect(parts.names).toEqual({ '#r0_0': 'deployedAt' });
    expect(parts.values).toBeUndefined();
  });
});

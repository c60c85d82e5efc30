import { describe, expect, it } from 'vitest';
import { concurrencyKeyValue } from '../../functions/scripts/runs/concurrency-key.js';
import { noKeyValue } from '../../functions/scripts/runs/run-slots.js';

describe('scripts: the value of a concurrency key in a run’s data', () => {
  it('reads a dotted path to a string, number or boolean as text', () => {
    // Prepare
    const data = { customer: { id: 'acme', tier: 3, active: true } };
    // Act
    const values = ['customer.id', 'customer.tier', 'customer.active'].map((path) => concurrencyKeyValue(path, data));
    // Assess
    expect(values).toEqual(['acme', '3', 'true']);
  });

  it('gives every run without a scalar there the one shared "no value"', () => {
    // Prepare
    const data = { customer: { id: null, tags: ['a'], nested: { deep: 1 } }, list: [{ id: 'x' }] };
    // Act
    const values = ['customer.id', 'customer.tags', 'customer.nested', 'customer.missing', 'customer.id.more', 'nothing', 'constructor', 'list.0.id'].map(
      (path) => concurrencyKeyValue(path, data),
    );
    // Assess
    expect(values.slice(0, 7)).toEqual(Array(7).fill(noKeyValue));
    expect(values[7]).toBe('x');
    expect(concurrencyKeyValue('customer', 'not an object')).toBe(noKeyValue);
  });
});

// The embedding worker's replacements for two kernels of the tfjs WASM backend give the backend's own results.
import * as energetic from '@energetic-ai/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { registerWasmKernels } from '../../functions/adapters/local/wasm-kernels.mjs';

/** The part of tfjs used here (the package's types name tfjs-core's without shipping them). */
interface Tensor {
  shape: number[];
  dataSync(): Float32Array | Int32Array;
}
const core = energetic as unknown as {
  ready(): Promise<void>;
  tensor(values: Float32Array | Int32Array, shape: number[], dtype?: 'int32'): Tensor;
  matMul(a: Tensor, b: Tensor, transposeA?: boolean, transposeB?: boolean): Tensor;
  split(x: Tensor, sizes: number | number[], axis: number): Tensor[];
};

/** Seeded values, so a failure reproduces. */
const values = (count: number, seed: number) => Float32Array.from({ length: count }, (_, index) => Math.sin(seed * 1000 + index * 0.37));

interface Case {
  name: string;
  run(): Tensor | Tensor[];
}

const cases: Case[] = [
  { name: 'batched product', run: () => core.matMul(core.tensor(values(2 * 3 * 5 * 7, 1), [2, 3, 5, 7]), core.tensor(values(2 * 3 * 7 * 4, 2), [2, 3, 7, 4])) },
  {
    name: 'batched product with B transposed',
    run: () => core.matMul(core.tensor(values(6 * 9 * 16, 3), [6, 9, 16]), core.tensor(values(6 * 11 * 16, 4), [6, 11, 16]), false, true),
  },
  {
    name: 'batched product with A transposed',
    run: () => core.matMul(core.tensor(values(4 * 8 * 5, 5), [4, 8, 5]), core.tensor(values(4 * 8 * 3, 6), [4, 8, 3]), true, false),
  },
  { name: 'broadcast product', run: () => core.matMul(core.tensor(values(3 * 4 * 6, 7), [3, 4, 6]), core.tensor(values(6 * 2, 8), [1, 6, 2])) },
  { name: 'unbatched product', run: () => core.matMul(core.tensor(values(10 * 12, 9), [10, 12]), core.tensor(values(12 * 5, 10), [12, 5])) },
];
const splits: Case[] = [
  { name: 'split along the last axis', run: () => core.split(core.tensor(values(2 * 7 * 12, 11), [2, 7, 12]), [3, 4, 5], 2) },
  { name: 'split along a middle axis', run: () => core.split(core.tensor(values(3 * 6 * 4, 12), [3, 6, 4]), 3, 1) },
  {
    name: 'split of integers along the first axis',
    run: () =>
      core.split(
        core.tensor(
          Int32Array.from({ length: 24 }, (_, index) => index * 7 - 50),
          [4, 6],
          'int32',
        ),
        [1, 3],
        0,
      ),
  },
];

const read = (result: Tensor | Tensor[]) =>
  (Array.isArray(result) ? result : [result]).map((tensor) => ({ shape: tensor.shape, data: Array.from(tensor.dataSync()) }));
const before = new Map<string, ReturnType<typeof read>>();

beforeAll(async () => {
  await core.ready();
  for (const test of [...cases, ...splits]) before.set(test.name, read(test.run()));
  registerWasmKernels(energetic);
});

describe('documents: WASM kernels of the embedding worker', () => {
  it.each(cases.map((test) => [test.name, test] as const))('computes a %s as the backend does, to float rounding', (_, test) => {
    // Act
    const after = read(test.run());
    // Assess
    const [expected] = before.get(test.name)!;
    expect(after[0]!.shape).toEqual(expected!.shape);
    after[0]!.data.forEach((value, index) => {
      expect(value).toBeCloseTo(expected!.data[index]!, 5);
    });
  });

  it.each(splits.map((test) => [test.name, test] as const))('makes a %s bit for bit as the backend does', (_, test) => {
    // Act
    const after = read(test.run());
    // Assess
    expect(after).toEqual(before.get(test.name));
  });
});

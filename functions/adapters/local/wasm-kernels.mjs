// Two kernels of the tfjs WASM backend replaced by faster ones for the embedding model. Plain JavaScript: the
// embedding worker loads it.
// - BatchMatMul: the backend runs only an unbatched, untransposed product through XNNPACK; a batched one (attention's
//   [batch, heads, tokens, d]) goes through a scalar loop about 14 times slower, a quarter of the model's time. Here B
//   is transposed once and each batch slice goes through the backend's own XNNPACK path. The sums are the same
//   products added in another order: a vector moves by at most about 2e-7 per component.
// - SplitV: the backend copies the whole input out of WASM memory once per part; here each part is copied straight
//   from it (the same values, bit for bit).

/** Replaces the WASM backend's BatchMatMul and SplitV kernels of the tfjs `core` module given. */
export function registerWasmKernels(core) {
  const replace = (name, kernelFunc) => {
    const config = core.getKernel(name, 'wasm');
    core.unregisterKernel(name, 'wasm');
    core.registerKernel({ ...config, kernelFunc: (args) => kernelFunc(args, config.kernelFunc) });
  };
  const transpose = core.getKernel('Transpose', 'wasm').kernelFunc;
  replace('BatchMatMul', (args, unbatched) => slicedBatchMatMul(args, unbatched, transpose));
  replace('SplitV', (args, original) => splitV(core, args, original));
}

const product = (sizes) => sizes.reduce((total, size) => total * size, 1);

function slicedBatchMatMul(args, unbatched, transpose) {
  const {
    inputs: { a, b },
    backend,
    attrs: { transposeA, transposeB },
  } = args;
  const outer = a.shape.slice(0, -2);
  const batch = product(outer);
  // Broadcast batches and a transposed A are left to the backend (the model has neither).
  const sameOuter = b.shape.length === a.shape.length && outer.every((size, axis) => size === b.shape[axis]);
  if (batch <= 1 || transposeA || !sameOuter || a.dtype !== 'float32' || b.dtype !== 'float32') return unbatched(args);
  const [m, k] = a.shape.slice(-2);
  const n = transposeB ? b.shape.at(-2) : b.shape.at(-1);
  const perm = [...outer.keys(), outer.length + 1, outer.length];
  const right = transposeB ? transpose({ inputs: { x: b }, backend, attrs: { perm } }) : b;
  const out = backend.makeOutput([...outer, m, n], 'float32');
  for (let slice = 0; slice < batch; slice++) {
    const left = backend.makeOutput([1, m, k], 'float32');
    const weights = backend.makeOutput([1, k, n], 'float32');
    // Views are taken after every allocation: an allocation may grow the WASM memory and detach older views.
    backend.typedArrayFromHeap(left).set(backend.typedArrayFromHeap(a).subarray(slice * m * k, (slice + 1) * m * k));
    backend.typedArrayFromHeap(weights).set(backend.typedArrayFromHeap(right).subarray(slice * k * n, (slice + 1) * k * n));
    const part = unbatched({ inputs: { a: left, b: weights }, backend, attrs: { transposeA: false, transposeB: false } });
    backend.typedArrayFromHeap(out).set(backend.typedArrayFromHeap(part), slice * m * n);
    for (const info of [left, weights, part]) backend.disposeData(info.dataId);
  }
  if (right !== b) backend.disposeData(right.dataId);
  return out;
}

function splitV(core, args, original) {
  const {
    inputs: { x },
    backend,
    attrs: { numOrSizeSplits, axis },
  } = args;
  if (x.dtype === 'string') return original(args);
  const at = core.util.parseAxisParam(axis, x.shape)[0];
  const sizes = core.backend_util.prepareSplitSize(x, numOrSizeSplits, at);
  const rows = product(x.shape.slice(0, at));
  const inner = product(x.shape.slice(at + 1));
  const outs = sizes.map((size) =>
    backend.makeOutput(
      x.shape.map((extent, dim) => (dim === at ? size : extent)),
      x.dtype,
    ),
  );
  const source = backend.typedArrayFromHeap(x);
  const rowLength = x.shape[at] * inner;
  let begin = 0;
  outs.forEach((out, index) => {
    const length = sizes[index] * inner;
    const target = backend.typedArrayFromHeap(out);
    for (let row = 0; row < rows; row++) target.set(source.subarray(row * rowLength + begin, row * rowLength + begin + length), row * length);
    begin += length;
  });
  return outs;
}

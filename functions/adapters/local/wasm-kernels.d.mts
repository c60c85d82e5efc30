/** Replaces the WASM backend's BatchMatMul and SplitV kernels of the tfjs `core` module given (wasm-kernels.mjs). */
export function registerWasmKernels(core: typeof import('@energetic-ai/core')): void;

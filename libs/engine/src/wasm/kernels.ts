// Stateless kernels on a process-wide scratch instance (training, MaxSim, parity tests). Callers copy
// inputs in, call, and copy results out; nothing is kept across calls, so growth cannot stale a view.
import { EngineExports } from './exports';
import { instantiateEngine } from './loader';
import { MemoryViews } from './memory-views';

let scratch: { wasm: EngineExports; views: MemoryViews; base: number } | undefined;

/** The scratch instance, with at least `bytes` bytes available from `base`. */
export function scratchKernels(bytes: number): { wasm: EngineExports; views: MemoryViews; base: number } {
  if (!scratch) {
    const wasm = instantiateEngine();
    scratch = { wasm, views: new MemoryViews(wasm.memory), base: Math.ceil(wasm.heapBase() / 64) * 64 };
  }
  scratch.views.ensure(scratch.base + bytes);
  return scratch;
}

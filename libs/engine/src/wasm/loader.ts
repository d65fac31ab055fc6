// Finds, compiles (once per process) and instantiates build/wasm/engine.wasm.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { ABI_VERSION } from './layout';
import { asEngineExports, EngineExports } from './exports';

let compiled: WebAssembly.Module | undefined;

/** Walks up from this file to the directory holding asconfig.json and returns its build/wasm/engine.wasm. */
export function locateEngineWasm(from: string = __dirname): string {
  const override = process.env.VECTORSTORE_ENGINE_WASM;
  if (override) return override;
  let dir = from;
  for (;;) {
    if (existsSync(join(dir, 'asconfig.json'))) return join(dir, 'build', 'wasm', 'engine.wasm');
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error(`engine.wasm: no asconfig.json above ${from}; run npm run build:wasm in the repository`);
    dir = parent;
  }
}

/** The compiled module, compiled synchronously on first use. */
export function engineModule(): WebAssembly.Module {
  if (!compiled) {
    // Compile with the optimizing tier right away: the search loop is one long call per query, and V8's
    // baseline tier (Liftoff) would otherwise run it until dynamic tier-up catches up, skewing latency.
    try {
      setFlagsFromString('--no-liftoff');
    } catch {
      // an unknown flag on some future V8 only costs warm-up time
    }
    const path = locateEngineWasm();
    if (!existsSync(path)) throw new Error(`engine.wasm not found at ${path}; run npm run build:wasm`);
    compiled = new WebAssembly.Module(readFileSync(path));
  }
  return compiled;
}

/** Pages of a new index memory, and its maximum (4 GiB, the wasm32 limit; shared memories need one). */
export const INITIAL_PAGES = 16;
export const MAXIMUM_PAGES = 65536;

/** A fresh instance with its own shared linear memory (one per index), ABI checked. */
export function instantiateEngine(): EngineExports {
  const memory = new WebAssembly.Memory({ initial: INITIAL_PAGES, maximum: MAXIMUM_PAGES, shared: true });
  return attachEngine(memory);
}

/** Another instance over an existing memory (worker threads working on the same index). */
export function attachEngine(memory: WebAssembly.Memory, module: WebAssembly.Module = engineModule()): EngineExports {
  const instance = new WebAssembly.Instance(module, { env: { memory } });
  const exports = asEngineExports(instance.exports);
  const abi = exports.abiVersion();
  if (abi !== ABI_VERSION) {
    throw new Error(
      `engine.wasm ABI ${abi} does not match the engine library's ${ABI_VERSION}; rebuild with npm run build:wasm`,
    );
  }
  return exports;
}

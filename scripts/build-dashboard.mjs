// Builds the web dashboard (apps/dashboard) into dist/dashboard with esbuild: one minified ES module, one stylesheet,
// the page and its icon, and apart from them the vector map's UMAP worker (map-worker.js, umap-js inside), which the
// page loads only when UMAP is chosen. Run by `npm run build` after the server's build (which empties dist/). Prints
// the sizes: the initial load (held to 300 KB gzipped) and the worker.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const root = join(import.meta.dirname, '..');
const source = join(root, 'apps', 'dashboard');
const out = join(root, 'dist', 'dashboard');

/** The worker's file name; apps/dashboard/src/ui/umap-runner.ts loads it by this name. */
const WORKER = 'map-worker.js';
/** Issue 30's budget for what the page loads first. */
const INITIAL_BUDGET_KB = 300;

const common = {
  bundle: true,
  minify: true,
  target: ['chrome109', 'firefox115', 'safari16'],
  legalComments: 'none',
  tsconfig: join(source, 'tsconfig.json'),
  logLevel: 'warning',
};

mkdirSync(out, { recursive: true });
await build({
  ...common,
  entryPoints: { app: join(source, 'src', 'main.tsx') },
  outdir: out,
  format: 'esm',
  jsx: 'automatic',
  jsxImportSource: 'preact',
});
// A classic script (iife): `new Worker(url)` without `type: 'module'` runs it in every browser the page targets.
await build({
  ...common,
  entryPoints: [join(source, 'src', 'map-worker', 'umap.worker.ts')],
  outfile: join(out, WORKER),
  format: 'iife',
});
copyFileSync(join(source, 'index.html'), join(out, 'index.html'));
copyFileSync(join(source, 'favicon.svg'), join(out, 'favicon.svg'));

const sizes = (files) => {
  let raw = 0;
  let gzipped = 0;
  for (const file of files) {
    raw += statSync(join(out, file)).size;
    gzipped += gzipSync(readFileSync(join(out, file)), { level: 9 }).length;
  }
  return { raw: raw / 1024, gzipped: gzipped / 1024 };
};
const initial = sizes(readdirSync(out).filter((file) => file !== WORKER));
const worker = sizes([WORKER]);
console.log(
  `dashboard: dist/dashboard, initial load ${initial.raw.toFixed(1)} KB, ${initial.gzipped.toFixed(1)} KB gzipped; ` +
    `${WORKER} (loaded when UMAP is chosen) ${worker.raw.toFixed(1)} KB, ${worker.gzipped.toFixed(1)} KB gzipped`,
);
if (initial.gzipped > INITIAL_BUDGET_KB) {
  console.error(`dashboard: the initial load is over its ${INITIAL_BUDGET_KB} KB gzipped budget`);
  process.exit(1);
}

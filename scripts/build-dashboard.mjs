// Builds the web dashboard (apps/dashboard) into dist/dashboard with esbuild: one minified ES module, one stylesheet,
// the page and its icon. Run by `npm run build` after the server's build (which empties dist/). Prints the sizes.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const root = join(import.meta.dirname, '..');
const source = join(root, 'apps', 'dashboard');
const out = join(root, 'dist', 'dashboard');

mkdirSync(out, { recursive: true });
await build({
  entryPoints: { app: join(source, 'src', 'main.tsx') },
  outdir: out,
  bundle: true,
  format: 'esm',
  minify: true,
  target: ['chrome109', 'firefox115', 'safari16'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'none',
  tsconfig: join(source, 'tsconfig.json'),
  logLevel: 'warning',
});
copyFileSync(join(source, 'index.html'), join(out, 'index.html'));
copyFileSync(join(source, 'favicon.svg'), join(out, 'favicon.svg'));

let raw = 0;
let gzipped = 0;
for (const file of readdirSync(out)) {
  raw += statSync(join(out, file)).size;
  gzipped += gzipSync(readFileSync(join(out, file)), { level: 9 }).length;
}
console.log(`dashboard: dist/dashboard, ${(raw / 1024).toFixed(1)} KB, ${(gzipped / 1024).toFixed(1)} KB gzipped`);

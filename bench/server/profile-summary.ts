// Summarises a V8 .cpuprofile (node --cpu-prof) of the server: self time by area and the top functions.
// Usage: tsx bench/server/profile-summary.ts <file.cpuprofile> [top=25]
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Which part of the stack a frame belongs to, by its script. */
function areaOf(url: string, name: string): string {
  if (name === '(idle)' || name === '(program)' || name === '(garbage collector)') return name;
  if (url.includes('@grpc/')) return 'grpc-js';
  if (url.includes('protobufjs') || url.includes('@grpc/proto-loader')) return 'protobuf';
  if (url.includes('@nestjs/')) return 'nestjs';
  if (url.includes('/rxjs/')) return 'rxjs';
  if (url.includes('node_modules/')) return url.replace(/.*node_modules\/((@[^/]+\/)?[^/]+).*/, '$1');
  if (url.startsWith('node:')) return 'node';
  if (url.includes('/libs/engine/')) return 'engine';
  if (url.includes('/libs/')) return url.replace(/.*\/libs\/([^/]+)\/.*/, 'libs/$1');
  if (url.includes('/apps/server/src/')) return url.replace(/.*\/apps\/server\/src\/([^/]+)\/.*/, 'app/$1');
  if (url.startsWith('wasm://')) return 'engine (wasm)';
  return url === '' ? 'native/other' : 'other';
}

const [file, topArg] = process.argv.slice(2);
if (!file) throw new Error('usage: profile-summary <file.cpuprofile> [top]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

const areas = new Map<string, number>();
const functions = new Map<string, number>();
let busy = 0;
for (const [id, us] of selfUs) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  const area = areaOf(url, functionName);
  areas.set(area, (areas.get(area) ?? 0) + us);
  if (area === '(idle)') continue;
  busy += us;
  const key = `${functionName || '(anonymous)'} ${url.replace(/.*\/(node_modules|dist)\//, '')}:${lineNumber + 1}`;
  functions.set(key, (functions.get(key) ?? 0) + us);
}

const pct = (us: number) => `${((100 * us) / busy).toFixed(1)}%`;
console.log(`busy ${(busy / 1e6).toFixed(2)} s (idle excluded)\n\n| area | self | share of busy |\n|---|---:|---:|`);
for (const [area, us] of [...areas].sort((a, b) => b[1] - a[1])) {
  if (area !== '(idle)') console.log(`| ${area} | ${(us / 1e3).toFixed(0)} ms | ${pct(us)} |`);
}
console.log('\n| function | self | share |\n|---|---:|---:|');
for (const [name, us] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg ?? 25))) {
  console.log(`| ${name} | ${(us / 1e3).toFixed(0)} ms | ${pct(us)} |`);
}

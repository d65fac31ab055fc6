// Judges a soak's samples again, from the file SOAK_JSON wrote: `npx tsx bench/soak/judge.ts /tmp/soak.json`
// (after a change of the rule, or to read the thirds it compared). Prints the failures; exit code 1 if any.
import { readFileSync } from 'node:fs';
import { sampleSecondsFor } from './soak';
import { judgeSoak, soakLimits, SoakSample } from './verdict';

interface SoakFile {
  minutes: number;
  samples: Array<Record<string, unknown>>;
}

const file = process.argv[2];
if (!file) throw new Error('usage: tsx bench/soak/judge.ts <file SOAK_JSON wrote>');
const run = JSON.parse(readFileSync(file, 'utf8')) as SoakFile;
// JSON has no NaN: the sampler's "none" (no snapshot ended, no job) came back as null
const samples = run.samples.map(
  (sample) =>
    Object.fromEntries(
      Object.entries(sample).map(([key, value]) => [key, value === null ? NaN : value]),
    ) as unknown as SoakSample,
);
const seconds = Math.round(run.minutes * 60);
const failures = judgeSoak(samples, soakLimits(seconds, sampleSecondsFor(seconds)));
console.log(failures.length === 0 ? 'passed' : failures.map((f) => `- ${f}`).join('\n'));
process.exit(failures.length === 0 ? 0 : 1);

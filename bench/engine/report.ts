// Progress bar on stderr and markdown tables on stdout.

export class Progress {
  private done = 0;
  private readonly start = Date.now();
  constructor(
    private readonly total: number,
    private readonly label = 'bench',
  ) {}
  step(what: string, units = 1): void {
    this.done = Math.min(this.total, this.done + units);
    const width = 30;
    const filled = Math.round((this.done / this.total) * width);
    const secs = ((Date.now() - this.start) / 1000).toFixed(0);
    process.stderr.write(
      `\r${this.label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${this.done}/${this.total} ${secs}s ${what.padEnd(40).slice(0, 40)}`,
    );
  }
  end(): void {
    process.stderr.write('\n');
  }
}

export function table(headers: string[], rows: (string | number)[][]): string {
  const cell = (v: string | number) => (typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(3)) : v);
  const lines = [`| ${headers.join(' | ')} |`, `|${headers.map((h, i) => (i === 0 ? '---' : '---:')).join('|')}|`];
  for (const r of rows) lines.push(`| ${r.map(cell).join(' | ')} |`);
  return lines.join('\n');
}

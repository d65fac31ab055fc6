/** A byte count for people: `812 B`, `3.4 KB`, `12.0 MB`, `1.25 GB`. */
export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 2 : 1)} ${units[unit]}`;
}

/** Progress as words: `1.2 MB of 3.4 MB (35%)`, or the bytes so far when the total is unknown. */
export function progressText(loaded: number, total: number | undefined): string {
  return total ? `${bytes(loaded)} of ${bytes(total)} (${Math.round((loaded / total) * 100)}%)` : bytes(loaded);
}

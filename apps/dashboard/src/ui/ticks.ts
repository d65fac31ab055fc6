/** Axis ticks: `count`+1 round values from 0 (or `min`) to at least `max`. */
export function ticks(max: number, count = 4, min = 0): number[] {
  const span = Math.max(max - min, 1e-9);
  const raw = span / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? raw;
  const top = Math.ceil(max / step - 1e-9) * step;
  const out: number[] = [];
  for (let v = Math.floor(min / step) * step; v <= top + step / 2; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

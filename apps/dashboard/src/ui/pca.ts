/** Rows the axes are fitted on, at most: evenly spaced rows of the sample. */
const FIT_ROWS = 600;

/**
 * Principal component analysis to 2-D by power iteration (no matrix is formed: each step is two passes over the
 * data), deterministic: a fixed start and each axis signed so that its largest component is positive. The axes are
 * fitted on at most {@link FIT_ROWS} rows, then every row is projected, so the vector map's first paint of 5 000
 * vectors stays short (measured in Node on the loaded 2-core machine: 0.3 s at 128 dimensions, 0.8-1.1 s at 768, for
 * uniform noise, the slowest case since no direction leads).
 */
export function pca2(rows: number[][], iterations = 40): [number, number][] {
  const n = rows.length;
  if (n === 0) return [];
  const dim = rows[0].length;
  const mean = new Float64Array(dim);
  for (const row of rows) for (let j = 0; j < dim; j++) mean[j] += row[j] / n;
  const centered = rows.map((row) => {
    const x = new Float64Array(dim);
    for (let j = 0; j < dim; j++) x[j] = row[j] - mean[j];
    return x;
  });
  const every = Math.ceil(n / FIT_ROWS);
  const fit = every > 1 ? centered.filter((_, i) => i % every === 0) : centered;
  const axes: Float64Array[] = [];
  for (let c = 0; c < Math.min(2, dim); c++) {
    // Deflation: each vector is kept orthogonal to the axes found already, the start too (data of rank 1 would
    // otherwise leave the start as the second axis).
    const deflate = (u: Float64Array): Float64Array => {
      // Twice: one Gram-Schmidt pass loses orthogonality when most of `u` cancels.
      for (let pass = 0; pass < 2; pass++)
        for (const axis of axes) {
          let dot = 0;
          for (let j = 0; j < dim; j++) dot += u[j] * axis[j];
          for (let j = 0; j < dim; j++) u[j] -= dot * axis[j];
        }
      return u;
    };
    const unit = (u: Float64Array): Float64Array => {
      const norm = Math.hypot(...u);
      return norm === 0 ? u : u.map((x) => x / norm);
    };
    let v = unit(deflate(Float64Array.from({ length: dim }, (_, j) => 1 / (j + 1 + c))));
    for (let it = 0; it < iterations; it++) {
      const next = new Float64Array(dim);
      for (const x of fit) {
        let dot = 0;
        for (let j = 0; j < dim; j++) dot += x[j] * v[j];
        for (let j = 0; j < dim; j++) next[j] += dot * x[j];
      }
      const before = Math.hypot(...next);
      const left = deflate(next);
      // Nothing (beyond rounding) is left outside the axes found: the data has no more directions; keep `v`.
      if (Math.hypot(...left) <= before * 1e-9 || before === 0) break;
      const moved = unit(left);
      const converged = moved.every((x, j) => Math.abs(x - v[j]) < 1e-10);
      v = moved;
      if (converged) break;
    }
    let largest = 0;
    for (let j = 0; j < dim; j++) if (Math.abs(v[j]) > Math.abs(v[largest])) largest = j;
    if (v[largest] < 0) v = v.map((x) => -x);
    axes.push(v);
  }
  return centered.map((x) => {
    const coords: [number, number] = [0, 0];
    axes.forEach((axis, c) => {
      let sum = 0;
      for (let j = 0; j < dim; j++) sum += x[j] * axis[j];
      coords[c] = sum;
    });
    return coords;
  });
}

/** The colour of each payload value: the most frequent values get the palette's colours, the rest grey. */
export const PALETTE = [
  '#2563eb',
  '#dc2626',
  '#16a34a',
  '#d97706',
  '#9333ea',
  '#0891b2',
  '#db2777',
  '#65a30d',
  '#4b5563',
];
export const OTHER_COLOUR = '#9ca3af';

export function colourKeys(values: string[]): { key: string; count: number; colour: string }[] {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([key, count], i) => ({ key, count, colour: PALETTE[i] ?? OTHER_COLOUR }));
}

import { useState } from 'preact/hooks';
import { request, stringifyJson } from '../api/http';
import type { Json, Point } from '../api/types';
import { LineChart } from '../ui/chart';
import { CollectionNav } from '../ui/collection-nav';
import { FilterEditor } from '../ui/filter-editor';
import { messageOf } from '../ui/hooks';
import { parseFilter } from '../ui/parse';
import { parseEfList, precisionAtK, vectorOf } from '../ui/quality';
import { ErrorText, Field } from '../ui/widgets';

interface Measured {
  k: number;
  sample: Point[];
  rows: { ef: number; precision: number }[];
}

/**
 * Search quality: precision@k of the index against exact search, by `hnsw_ef`, for a random sample of the
 * collection's points (each point's vector as a query), through the public Query API only: one batch of exact
 * queries, then one batch per `hnsw_ef`.
 */
export function QualityPage({ name }: { name: string }) {
  const [sampleSize, setSampleSize] = useState('20');
  const [k, setK] = useState('10');
  const [efText, setEfText] = useState('4, 8, 16, 32, 64, 128');
  const [using, setUsing] = useState('');
  const [filterText, setFilterText] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [measured, setMeasured] = useState<Measured>();
  const [busy, setBusy] = useState(false);
  const base = `/collections/${encodeURIComponent(name)}/points/query`;

  const run = async (event: Event): Promise<void> => {
    event.preventDefault();
    const problems: Record<string, string> = {};
    const size = Number(sampleSize);
    const top = Number(k);
    if (!Number.isInteger(size) || size < 1 || size > 1000) problems.sample = 'A whole number from 1 to 1000';
    if (!Number.isInteger(top) || top < 1) problems.k = 'A whole number of 1 or more';
    const efs = parseEfList(efText);
    if (efs.error) problems.hnsw_ef = efs.error;
    const filter = parseFilter(filterText);
    if (filter.error) problems.filter = filter.error;
    setErrors(problems);
    if (Object.keys(problems).length > 0) return;
    setBusy(true);
    setMeasured(undefined);
    const vectorName = using.trim();
    try {
      const sampled = await request<{ points: Point[] }>('POST', base, {
        query: { sample: 'random' },
        limit: size,
        filter: filter.filter,
        with_payload: false,
        with_vector: true,
      });
      const sample = sampled.points.filter((p) => vectorOf(p, vectorName) !== undefined);
      if (sample.length === 0) throw new Error(noVectorMessage(sampled.points, vectorName));
      const batch = (params: Record<string, Json>): Promise<{ points: Point[] }[]> =>
        request<{ points: Point[] }[]>('POST', `${base}/batch`, {
          searches: sample.map((point) => ({
            query: vectorOf(point, vectorName) as Json,
            using: vectorName === '' ? undefined : vectorName,
            filter: filter.filter,
            limit: top,
            params,
          })),
        });
      const exact = (await batch({ exact: true })).map((r) => r.points);
      const rows: Measured['rows'] = [];
      for (const ef of efs.values ?? []) {
        const approximate = (await batch({ hnsw_ef: ef })).map((r) => r.points);
        rows.push({ ef, precision: precisionAtK(exact, approximate) });
      }
      setMeasured({ k: top, sample, rows });
    } catch (error) {
      setErrors({ form: messageOf(error) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section>
      <CollectionNav name={name} current="quality" />
      <form class="card" data-testid="quality-form" onSubmit={(event) => void run(event)} novalidate>
        <p class="muted">
          Each sampled point’s vector is a query: the index’s top k (at each <code>hnsw_ef</code>) is compared with
          exact search’s top k.
        </p>
        <div class="row">
          <Field label="Sample size (random points)" name="sample" error={errors.sample}>
            <input
              name="sample"
              inputMode="numeric"
              value={sampleSize}
              onInput={(e) => setSampleSize(e.currentTarget.value)}
            />
          </Field>
          <Field label="k (top results compared)" name="k" error={errors.k}>
            <input name="k" inputMode="numeric" value={k} onInput={(e) => setK(e.currentTarget.value)} />
          </Field>
          <Field label="hnsw_ef values" name="hnsw_ef" error={errors.hnsw_ef}>
            <input name="hnsw_ef" value={efText} onInput={(e) => setEfText(e.currentTarget.value)} />
          </Field>
          <Field label="Vector name (empty: the default)" name="using">
            <input name="using" value={using} onInput={(e) => setUsing(e.currentTarget.value)} />
          </Field>
        </div>
        <FilterEditor value={filterText} onChange={setFilterText} serverError={errors.filter} />
        <ErrorText message={errors.form} testId="quality-error" />
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Measuring…' : 'Measure precision'}
        </button>
      </form>
      {measured ? (
        <div class="card" data-testid="quality-result">
          <div class="row">
            <LineChart
              title={`precision@${measured.k} by hnsw_ef`}
              testId="quality-chart"
              // hnsw_ef values usually double: a log scale spreads them evenly.
              xs={measured.rows.map((r) => Math.log2(r.ef))}
              ys={measured.rows.map((r) => r.precision)}
              xTicks={measured.rows.map((r) => Math.log2(r.ef))}
              xFormat={(x) => String(Math.round(2 ** x))}
              yMax={1}
              xLabel="hnsw_ef (log scale)"
              yLabel={`precision@${measured.k}`}
            />
            <table class="compact" data-testid="quality-table">
              <thead>
                <tr>
                  <th class="num">hnsw_ef</th>
                  <th class="num">precision@{measured.k}</th>
                </tr>
              </thead>
              <tbody>
                {measured.rows.map((row) => (
                  <tr key={row.ef} data-testid={`quality-ef-${row.ef}`}>
                    <td class="num">{row.ef}</td>
                    <td class="num" data-precision={String(row.precision)}>
                      {row.precision.toFixed(4)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <details>
            <summary>Sample: {measured.sample.length} points</summary>
            <p data-testid="quality-sample">{measured.sample.map((p) => stringifyJson(p.id)).join(', ')}</p>
          </details>
        </div>
      ) : null}
    </section>
  );
}

/** Why no sampled point can be a query: the vector names the points do have. */
function noVectorMessage(points: Point[], using: string): string {
  if (points.length === 0) return 'No point to sample (an empty collection, or none matches the filter).';
  const names = new Set<string>();
  for (const point of points)
    if (point.vector && typeof point.vector === 'object' && !Array.isArray(point.vector))
      Object.keys(point.vector).forEach((key) => names.add(key));
  const have =
    names.size > 0
      ? `its vectors are named ${[...names].map((n) => `"${n}"`).join(', ')}`
      : 'it has only the default vector';
  return using === ''
    ? `The sampled points have no default vector: ${have}. Choose a vector name.`
    : `The sampled points have no vector named "${using}": ${have}.`;
}

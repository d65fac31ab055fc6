import { getPoint } from '../api/points';
import { canWrite } from '../api/session';
import type { Json } from '../api/types';
import { CollectionNav } from '../ui/collection-nav';
import { useLoad, useSession } from '../ui/hooks';
import { parsePointId } from '../ui/parse';
import { PointsTable } from '../ui/points-table';
import { ErrorText } from '../ui/widgets';
import { collectionHref } from '../router';

/** One vector of a point, as the API gives it: dense numbers, sparse indices and values, or a multivector. */
export type VectorKind =
  | { kind: 'dense'; values: number[] }
  | { kind: 'sparse'; indices: number[]; values: number[] }
  | { kind: 'multi'; rows: number[][] }
  | { kind: 'other'; value: Json };

export function vectorKind(value: Json): VectorKind {
  if (Array.isArray(value)) {
    if (value.every((x) => typeof x === 'number')) return { kind: 'dense', values: value as number[] };
    if (value.every((row) => Array.isArray(row))) return { kind: 'multi', rows: value as number[][] };
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const { indices, values } = value as { indices?: unknown; values?: unknown };
    if (Array.isArray(indices) && Array.isArray(values))
      return { kind: 'sparse', indices: indices as number[], values: values as number[] };
  }
  return { kind: 'other', value };
}

/** A point's vectors by name (`""` for the unnamed default vector). */
export function vectorsByName(vector: Json | undefined): [string, Json][] {
  if (vector === undefined || vector === null) return [];
  if (Array.isArray(vector)) return [['', vector]];
  if (typeof vector === 'object' && vectorKind(vector).kind !== 'sparse') return Object.entries(vector);
  return [['', vector]];
}

/** One point: its payload (editable where writes are allowed) and every vector in full. */
export function PointPage({ name, id }: { name: string; id: string }) {
  const session = useSession();
  const parsed = parsePointId(id);
  const point = useLoad(
    () => (parsed.error ? Promise.reject(new Error(parsed.error)) : getPoint(name, parsed.id ?? id)),
    `point:${name}:${id}`,
  );
  return (
    <section>
      <CollectionNav name={name} current="points" />
      <h2>
        Point <code data-testid="point-id">{id}</code>
      </h2>
      <ErrorText message={point.error} testId="point-page-error" />
      {point.data ? (
        <>
          <PointsTable
            points={[{ ...point.data, vector: undefined }]}
            testId="point-summary"
            collection={name}
            writable={canWrite(session, name)}
            onChange={() => (point.data ? point.reload() : undefined)}
          />
          {vectorsByName(point.data.vector).map(([vectorName, value]) => (
            <VectorCard key={vectorName} name={vectorName} value={value} />
          ))}
          {vectorsByName(point.data.vector).length === 0 ? <p class="muted">This point has no vectors.</p> : null}
        </>
      ) : null}
      {point.error && /not found/i.test(point.error) ? (
        <p>
          <a href={collectionHref(name, 'points')}>Back to the points</a>
        </p>
      ) : null}
    </section>
  );
}

function VectorCard({ name, value }: { name: string; value: Json }) {
  const vector = vectorKind(value);
  const title = name === '' ? 'Default vector' : `Vector "${name}"`;
  const testId = `vector-${name === '' ? 'default' : name}`;
  return (
    <div class="card" data-testid={testId}>
      <h3>
        {title}:{' '}
        <span class="muted" data-testid="vector-kind">
          {vector.kind === 'dense'
            ? `dense, ${vector.values.length} dimensions`
            : vector.kind === 'sparse'
              ? `sparse, ${vector.indices.length} non-zero values`
              : vector.kind === 'multi'
                ? `multivector, ${vector.rows.length} vectors of ${vector.rows[0]?.length ?? 0} dimensions`
                : 'as the API gave it'}
        </span>
      </h3>
      {vector.kind === 'dense' ? (
        <pre class="vector-full" data-testid="vector-values">
          {vector.values.join(', ')}
        </pre>
      ) : vector.kind === 'sparse' ? (
        <table class="compact" data-testid="vector-values">
          <thead>
            <tr>
              <th class="num">Index</th>
              <th class="num">Value</th>
            </tr>
          </thead>
          <tbody>
            {vector.indices.map((index, i) => (
              <tr key={index}>
                <td class="num">{index}</td>
                <td class="num">{vector.values[i]}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : vector.kind === 'multi' ? (
        <ol class="vector-rows" data-testid="vector-values" start={0}>
          {vector.rows.map((row, i) => (
            <li key={i}>
              <pre>{row.join(', ')}</pre>
            </li>
          ))}
        </ol>
      ) : (
        <pre>{JSON.stringify(vector.value)}</pre>
      )}
    </div>
  );
}

import { useState } from 'preact/hooks';
import { request, stringifyJson } from '../api/http';
import type { Json, Point, PointId, ScrollResult } from '../api/types';
import { CollectionNav } from '../ui/collection-nav';
import { useLoad } from '../ui/hooks';
import { FilterEditor } from '../ui/filter-editor';
import { vectorSummary } from '../ui/format';
import { parseFilter } from '../ui/parse';
import { ErrorText, JsonView } from '../ui/widgets';

const PAGE_SIZES = [10, 25, 50, 100];

interface Page {
  filter?: Json;
  offset?: PointId | null;
  limit: number;
}

/** The points of a collection, a page at a time (scroll), with payloads as JSON and vectors cut short. */
export function PointsPage({ name }: { name: string }) {
  const [filterText, setFilterText] = useState('');
  const [page, setPage] = useState<Page>({ limit: 10 });
  // Offsets of the pages before this one, for "Previous".
  const [history, setHistory] = useState<(PointId | null | undefined)[]>([]);
  const filterError = parseFilter(filterText).error;

  const result = useLoad(
    () =>
      request<ScrollResult>('POST', `/collections/${encodeURIComponent(name)}/points/scroll`, {
        filter: page.filter,
        offset: page.offset ?? undefined,
        limit: page.limit,
        with_payload: true,
        with_vector: true,
      }),
    `${name}:${stringifyJson(page)}`,
  );
  const serverFilterError =
    result.error &&
    /filter/i.test(result.error) &&
    !(result.error.startsWith('Permission') || result.error.startsWith('The server'))
      ? result.error
      : undefined;

  const apply = (event: Event): void => {
    event.preventDefault();
    const parsed = parseFilter(filterText);
    if (parsed.error) return;
    setHistory([]);
    setPage({ filter: parsed.filter, limit: page.limit });
  };

  return (
    <section>
      <CollectionNav name={name} current="points" />
      <form class="card" data-testid="filter-form" onSubmit={apply}>
        <FilterEditor value={filterText} onChange={setFilterText} serverError={serverFilterError} />
        <div class="row">
          <label class="field">
            <span>Page size</span>
            <select
              name="limit"
              value={String(page.limit)}
              onChange={(e) => {
                setHistory([]);
                setPage({ filter: page.filter, limit: Number(e.currentTarget.value) });
              }}
            >
              {PAGE_SIZES.map((n) => (
                <option key={n}>{n}</option>
              ))}
            </select>
          </label>
          <button type="submit" class="primary" disabled={Boolean(filterError)}>
            Apply filter
          </button>
        </div>
      </form>
      <ErrorText message={serverFilterError ? undefined : result.error} testId="points-error" />
      <PointsTable points={result.data?.points ?? []} testId="points-table" />
      <div class="pager">
        <button
          disabled={history.length === 0}
          onClick={() => {
            setPage({ ...page, offset: history[history.length - 1] });
            setHistory(history.slice(0, -1));
          }}
        >
          Previous
        </button>
        <button
          data-testid="next-page"
          disabled={result.data?.next_page_offset === undefined || result.data?.next_page_offset === null}
          onClick={() => {
            setHistory([...history, page.offset]);
            setPage({ ...page, offset: result.data?.next_page_offset });
          }}
        >
          Next
        </button>
      </div>
    </section>
  );
}

/** Points as rows: id, score when there is one, payload as JSON text, vector summary. */
export function PointsTable({ points, testId }: { points: Point[]; testId: string }) {
  const scored = points.some((p) => typeof p.score === 'number');
  return (
    <table data-testid={testId} class="points">
      <thead>
        <tr>
          <th>Id</th>
          {scored ? <th class="num">Score</th> : null}
          <th>Payload</th>
          <th>Vector</th>
        </tr>
      </thead>
      <tbody>
        {points.map((point) => (
          <tr key={String(point.id)} data-testid={`point-${String(point.id)}`}>
            <td>
              <code>{String(point.id)}</code>
            </td>
            {scored ? (
              <td class="num score">{typeof point.score === 'number' ? point.score.toFixed(4) : '—'}</td>
            ) : null}
            <td>
              <JsonView value={point.payload ?? null} />
            </td>
            <td>
              <pre class="vector">{vectorSummary(point.vector)}</pre>
            </td>
          </tr>
        ))}
        {points.length === 0 ? (
          <tr>
            <td colSpan={scored ? 4 : 3} class="muted">
              No points.
            </td>
          </tr>
        ) : null}
      </tbody>
    </table>
  );
}

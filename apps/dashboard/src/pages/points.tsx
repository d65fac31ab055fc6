import { useState } from 'preact/hooks';
import { request, stringifyJson } from '../api/http';
import { countPoints } from '../api/points';
import { canWrite } from '../api/session';
import type { Json, PointId, ScrollResult } from '../api/types';
import { CollectionNav } from '../ui/collection-nav';
import { useLoad, useSession } from '../ui/hooks';
import { FilterEditor } from '../ui/filter-editor';
import { parseFilter } from '../ui/parse';
import { PointsTable } from '../ui/points-table';
import { ErrorText } from '../ui/widgets';

export { PointsTable };

const PAGE_SIZES = [10, 25, 50, 100];

interface Page {
  filter?: Json;
  offset?: PointId | null;
  limit: number;
}

/** The points of a collection, a page at a time (scroll), with payloads as JSON and vectors cut short. */
export function PointsPage({ name }: { name: string }) {
  const session = useSession();
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
  // The total of the filter, for "11–20 of 57"; read again when the filter or the points change.
  const total = useLoad(() => countPoints(name, page.filter), `${name}:count:${stringifyJson(page.filter ?? null)}`);
  const shown = result.data?.points.length ?? 0;
  const first = history.length * page.limit + 1;
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
      {result.error ? null : (
        <>
          <p class="muted" data-testid="points-position" aria-live="polite">
            {result.data === undefined
              ? 'Loading…'
              : shown === 0
                ? `No points on this page${total.data !== undefined ? ` (${total.data.toLocaleString('en')} in all)` : ''}.`
                : `Points ${first.toLocaleString('en')}–${(first + shown - 1).toLocaleString('en')}${
                    total.data !== undefined ? ` of ${total.data.toLocaleString('en')}` : ''
                  } · page ${history.length + 1}${
                    total.data !== undefined ? ` of ${Math.max(1, Math.ceil(total.data / page.limit))}` : ''
                  }`}
          </p>
          {/* Only an answer is a table: a refused filter shows its error, never "No points." */}
          {result.data ? (
            <PointsTable
              points={result.data.points}
              testId="points-table"
              collection={name}
              writable={canWrite(session, name)}
              onChange={() => {
                result.reload();
                total.reload();
              }}
            />
          ) : null}
        </>
      )}
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

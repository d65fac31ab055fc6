import { useState } from 'preact/hooks';
import { request } from '../api/http';
import type { Point } from '../api/types';
import { CollectionNav } from '../ui/collection-nav';
import { messageOf } from '../ui/hooks';
import { FilterEditor } from '../ui/filter-editor';
import { parseFilter, parsePointId, parseVector } from '../ui/parse';
import { fieldOfMessage } from '../ui/format';
import { ErrorText, Field } from '../ui/widgets';
import { PointsTable } from './points';

/** Nearest neighbours of a stored point or of a pasted vector, with a filter and a limit, scores shown. */
export function QueryPage({ name }: { name: string }) {
  const [by, setBy] = useState<'id' | 'vector'>('vector');
  const [input, setInput] = useState('');
  const [using, setUsing] = useState('');
  const [limit, setLimit] = useState('10');
  const [filterText, setFilterText] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [hits, setHits] = useState<Point[]>();
  const [busy, setBusy] = useState(false);

  const run = async (event: Event): Promise<void> => {
    event.preventDefault();
    const query: { value?: unknown; error?: string } =
      by === 'id'
        ? (({ id, error }) => ({ value: id, error }))(parsePointId(input))
        : (({ vector, error }) => ({ value: vector, error }))(parseVector(input));
    const filter = parseFilter(filterText);
    const problems: Record<string, string> = {};
    if (query.error) problems.query = query.error;
    if (filter.error) problems.filter = filter.error;
    if (Object.keys(problems).length > 0) return setErrors(problems);
    setErrors({});
    setHits(undefined);
    setBusy(true);
    try {
      const answer = await request<{ points: Point[] }>(
        'POST',
        `/collections/${encodeURIComponent(name)}/points/query`,
        {
          query: query.value,
          using: using.trim() === '' ? undefined : using.trim(),
          filter: filter.filter,
          limit: Number(limit),
          with_payload: true,
          with_vector: true,
        },
      );
      setHits(answer.points);
    } catch (error) {
      const message = messageOf(error);
      const at = fieldOfMessage(message, {
        filter: ['filter'],
        limit: ['limit'],
        using: ['using', 'vector name', 'Vector with name', 'Wrong input: Not existing vector name'],
        query: ['query', 'point with id', 'dimension', 'Vector dimension'],
      });
      setErrors({ [at ?? 'form']: message });
      setHits(undefined);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section>
      <CollectionNav name={name} current="query" />
      <form class="card" data-testid="query-form" onSubmit={(event) => void run(event)}>
        <div class="tabs" role="tablist">
          <button type="button" role="tab" aria-selected={by === 'vector'} onClick={() => setBy('vector')}>
            By vector
          </button>
          <button
            type="button"
            role="tab"
            aria-selected={by === 'id'}
            data-testid="query-by-id"
            onClick={() => setBy('id')}
          >
            By point id
          </button>
        </div>
        <Field label={by === 'id' ? 'Point id' : 'Vector (JSON array)'} name="query" error={errors.query}>
          <input name="query" value={input} onInput={(e) => setInput(e.currentTarget.value)} />
        </Field>
        <div class="row">
          <Field label="Vector name (empty: the default)" name="using" error={errors.using}>
            <input name="using" value={using} onInput={(e) => setUsing(e.currentTarget.value)} />
          </Field>
          <Field label="Limit" name="limit" error={errors.limit}>
            <input name="limit" type="number" min="1" value={limit} onInput={(e) => setLimit(e.currentTarget.value)} />
          </Field>
        </div>
        <FilterEditor value={filterText} onChange={setFilterText} serverError={errors.filter} />
        <ErrorText message={errors.form} testId="query-error" />
        <button type="submit" class="primary" disabled={busy}>
          Run query
        </button>
      </form>
      {hits ? <PointsTable points={hits} testId="query-results" /> : null}
    </section>
  );
}

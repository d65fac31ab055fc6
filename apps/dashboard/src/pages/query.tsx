import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { request, stringifyJson } from '../api/http';
import { canWrite } from '../api/session';
import type { Json, Point } from '../api/types';
import { CollectionNav } from '../ui/collection-nav';
import { messageOf, useSession } from '../ui/hooks';
import { FilterEditor } from '../ui/filter-editor';
import { fieldOfMessage } from '../ui/format';
import { PointsTable } from '../ui/points-table';
import { buildQuery, EMPTY_QUERY, QUERY_MODES, type QueryForm } from '../ui/query-builder';
import { ErrorText, Field, JsonView } from '../ui/widgets';

interface Group {
  id: Json;
  hits: Point[];
}

/**
 * The query console: every form of the Query API (nearest, recommend, discover, context, prefetch with fusion),
 * grouping, and the search parameters (exact, hnsw_ef, score_threshold, with_vectors). `similar`: a point id to
 * start from ("find similar" on a row).
 */
export function QueryPage({ name, similar }: { name: string; similar?: string }) {
  const session = useSession();
  const [form, setForm] = useState<QueryForm>(similar ? { ...EMPTY_QUERY, by: 'id', input: similar } : EMPTY_QUERY);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [hits, setHits] = useState<Point[]>();
  const [groups, setGroups] = useState<Group[]>();
  const [sent, setSent] = useState<Json>();
  const [busy, setBusy] = useState(false);
  const set = <K extends keyof QueryForm>(key: K, value: QueryForm[K]): void =>
    setForm((f) => ({ ...f, [key]: value }));
  const built = buildQuery(form);

  const run = async (event?: Event): Promise<void> => {
    event?.preventDefault();
    if ('errors' in built) return setErrors(built.errors);
    setErrors({});
    setHits(undefined);
    setGroups(undefined);
    setSent(built.body);
    setBusy(true);
    try {
      const answer = await request<{ points?: Point[]; groups?: Group[] }>(
        'POST',
        `/collections/${encodeURIComponent(name)}/points/${built.path}`,
        built.body,
      );
      if (answer.groups) setGroups(answer.groups);
      else setHits(answer.points ?? []);
    } catch (error) {
      const message = messageOf(error);
      const at = fieldOfMessage(message, {
        filter: ['filter'],
        limit: ['limit'],
        hnsw_ef: ['hnsw_ef'],
        score_threshold: ['score_threshold'],
        group_by: ['group_by'],
        group_size: ['group_size'],
        prefetch: ['prefetch'],
        using: ['using', 'vector name', 'Vector with name', 'Wrong input: Not existing vector name'],
        positive: ['query.recommend.positive', 'recommend'],
        target: ['query.discover.target'],
        context: ['context'],
        query: ['query', 'point with id', 'dimension', 'Vector dimension'],
      });
      setErrors({ [at === 'query' && form.mode !== 'nearest' ? 'form' : (at ?? 'form')]: message });
    } finally {
      setBusy(false);
    }
  };
  // "Find similar" from a row: the answer is what was asked for, so run it at once.
  useEffect(() => {
    if (similar) void run();
  }, []);
  const text = (key: keyof QueryForm, label: string, field: string, hint?: string, rows = 0): ComponentChildren => (
    <Field label={label} name={field} error={errors[field]}>
      {rows > 0 ? (
        <textarea
          name={field}
          rows={rows}
          spellcheck={false}
          placeholder={hint}
          value={String(form[key])}
          onInput={(e) => set(key, e.currentTarget.value as never)}
        />
      ) : (
        <input
          name={field}
          placeholder={hint}
          value={String(form[key])}
          onInput={(e) => set(key, e.currentTarget.value as never)}
        />
      )}
    </Field>
  );

  return (
    <section>
      <CollectionNav name={name} current="query" />
      <form class="card" data-testid="query-form" onSubmit={(event) => void run(event)}>
        <Field label="Query" name="mode">
          <select
            name="mode"
            value={form.mode}
            onChange={(e) => set('mode', e.currentTarget.value as QueryForm['mode'])}
          >
            {QUERY_MODES.map(({ mode, label }) => (
              <option key={mode} value={mode}>
                {label}
              </option>
            ))}
          </select>
        </Field>
        {form.mode === 'nearest' ? (
          <>
            <div class="tabs" role="tablist" aria-label="Nearest to">
              <button type="button" role="tab" aria-selected={form.by === 'vector'} onClick={() => set('by', 'vector')}>
                By vector
              </button>
              <button
                type="button"
                role="tab"
                aria-selected={form.by === 'id'}
                data-testid="query-by-id"
                onClick={() => set('by', 'id')}
              >
                By point id
              </button>
            </div>
            {text(
              'input',
              form.by === 'id'
                ? 'Point id'
                : 'Vector (JSON: dense array, {"indices", "values"} sparse, or multivector)',
              'query',
            )}
          </>
        ) : null}
        {form.mode === 'recommend' ? (
          <div class="row">
            {text('positive', 'Positive examples (ids or vectors; ";" between vectors)', 'positive', '1, 2')}
            {text('negative', 'Negative examples', 'negative', '3')}
            <Field label="Strategy" name="strategy">
              <select name="strategy" value={form.strategy} onChange={(e) => set('strategy', e.currentTarget.value)}>
                <option value="">server default (average_vector)</option>
                <option value="average_vector">average_vector</option>
                <option value="best_score">best_score</option>
                <option value="sum_scores">sum_scores</option>
              </select>
            </Field>
          </div>
        ) : null}
        {form.mode === 'discover' ? text('target', 'Target (a point id or a vector)', 'target', '1') : null}
        {form.mode === 'discover' || form.mode === 'context'
          ? text('context', 'Context pairs (JSON)', 'context', '[{"positive": 1, "negative": 2}]', 2)
          : null}
        {form.mode === 'fusion' ? (
          <>
            {text(
              'prefetch',
              'Prefetch (JSON: one or a list of queries whose results are fused)',
              'prefetch',
              '[{"query": [0.1, 0.2, 0.3, 0.4], "limit": 20}, {"query": 5, "limit": 20}]',
              3,
            )}
            <Field label="Fusion" name="fusion">
              <select name="fusion" value={form.fusion} onChange={(e) => set('fusion', e.currentTarget.value as 'rrf')}>
                <option value="rrf">rrf (reciprocal rank)</option>
                <option value="dbsf">dbsf (distribution-based score)</option>
              </select>
            </Field>
          </>
        ) : null}
        <div class="row">
          {text('using', 'Vector name (empty: the default)', 'using')}
          {text('limit', 'Limit', 'limit')}
          {text('scoreThreshold', 'Score threshold', 'score_threshold')}
          {text('hnswEf', 'hnsw_ef (empty: the collection’s)', 'hnsw_ef')}
        </div>
        <div class="row">
          <label class="check">
            <input
              type="checkbox"
              name="exact"
              checked={form.exact}
              onChange={(e) => set('exact', e.currentTarget.checked)}
            />
            Exact (no index)
          </label>
          <label class="check">
            <input
              type="checkbox"
              name="with_vectors"
              checked={form.withVectors}
              onChange={(e) => set('withVectors', e.currentTarget.checked)}
            />
            With vectors
          </label>
          <label class="check">
            <input
              type="checkbox"
              name="with_payload"
              checked={form.withPayload}
              onChange={(e) => set('withPayload', e.currentTarget.checked)}
            />
            With payload
          </label>
          {text('groupBy', 'Group by payload field (empty: no groups)', 'group_by')}
          {form.groupBy.trim() !== '' ? text('groupSize', 'Points per group', 'group_size') : null}
        </div>
        <FilterEditor value={form.filter} onChange={(value) => set('filter', value)} serverError={errors.filter} />
        <ErrorText message={errors.form} testId="query-error" />
        <button type="submit" class="primary" disabled={busy}>
          Run query
        </button>
      </form>
      {sent !== undefined ? (
        <details class="card">
          <summary>Request sent</summary>
          <JsonView value={sent} testId="query-request" />
        </details>
      ) : null}
      {hits ? (
        <PointsTable
          points={hits}
          testId="query-results"
          collection={name}
          writable={canWrite(session, name)}
          onChange={() => void run()}
        />
      ) : null}
      {groups ? (
        <div data-testid="query-groups">
          {groups.map((group) => (
            <div class="card" key={String(group.id)} data-testid={`group-${String(group.id)}`}>
              <h3>
                Group <code>{stringifyJson(group.id)}</code> ({group.hits.length})
              </h3>
              <PointsTable points={group.hits} testId="group-hits" collection={name} />
            </div>
          ))}
          {groups.length === 0 ? <p class="muted">No groups.</p> : null}
        </div>
      ) : null}
    </section>
  );
}

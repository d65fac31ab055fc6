import { useState } from 'preact/hooks';
import { parseJson, request } from '../api/http';
import { loadApiRoutes } from '../api/openapi';
import {
  fieldSuggestions,
  type HistoryEntry,
  loadHistory,
  pathSuggestions,
  pointsOf,
  remember,
  routeOf,
  withField,
} from '../ui/console-completion';
import { messageOf, useLoad } from '../ui/hooks';
import { PointsTable } from '../ui/points-table';
import { ErrorText, Field, JsonView } from '../ui/widgets';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * A REST request editor: method, path and JSON body, completed from the server's API description
 * (`/openapi.json`), sent with the session's credential. Answers show as JSON, and points also as a table; the
 * server decides what the session may do (a reader's write comes back as its 403).
 */
export function ConsolePage() {
  const routes = useLoad(loadApiRoutes, 'openapi');
  const [method, setMethod] = useState('POST');
  const [path, setPath] = useState('');
  const [body, setBody] = useState('');
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const [history, setHistory] = useState<HistoryEntry[]>(() => loadHistory());
  const [answer, setAnswer] = useState<{ result: unknown; ms: number }>();
  const [error, setError] = useState<string>();
  const [bodyError, setBodyError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const suggestions = open && path !== '' ? pathSuggestions(routes.data ?? [], method, path).slice(0, 12) : [];
  const route = routeOf(routes.data ?? [], method, path);
  const fields = fieldSuggestions(route, body);
  const hasBody = method !== 'GET' && method !== 'DELETE';

  const pick = (value: string): void => {
    setPath(value);
    setOpen(false);
    setActive(-1);
  };
  const onPathKey = (event: KeyboardEvent): void => {
    if (event.key === 'ArrowDown' && suggestions.length > 0) {
      event.preventDefault();
      setOpen(true);
      setActive((i) => (i + 1) % suggestions.length);
    } else if (event.key === 'ArrowUp' && suggestions.length > 0) {
      event.preventDefault();
      setActive((i) => (i <= 0 ? suggestions.length - 1 : i - 1));
    } else if (event.key === 'Enter' && active >= 0 && suggestions[active]) {
      event.preventDefault();
      pick(suggestions[active]);
    } else if (event.key === 'Escape') setOpen(false);
  };

  const send = async (event?: Event): Promise<void> => {
    event?.preventDefault();
    setError(undefined);
    setBodyError(undefined);
    let parsed: unknown;
    if (hasBody && body.trim() !== '') {
      try {
        parsed = parseJson(body);
      } catch (failure) {
        return setBodyError(`Invalid JSON: ${messageOf(failure)}`);
      }
    }
    const target = path.startsWith('/') ? path : `/${path}`;
    setHistory(remember({ method, path: target, body: hasBody ? body : '' }));
    setAnswer(undefined);
    setBusy(true);
    const started = performance.now();
    try {
      const result = await request<unknown>(method, target, hasBody ? (parsed ?? {}) : undefined);
      setAnswer({ result, ms: performance.now() - started });
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };

  const points = answer ? pointsOf(answer.result) : undefined;
  const collection = /^\/collections\/([^/]+)\//.exec(path)?.[1];
  return (
    <section>
      <h2>API console</h2>
      <p class="muted">
        Paths and body fields are completed from the server’s API description, <code>/openapi.json</code>.
      </p>
      <ErrorText message={routes.error} testId="openapi-error" />
      <form class="card" data-testid="console-form" onSubmit={(event) => void send(event)} novalidate>
        <div class="row">
          <Field label="Method" name="method">
            <select name="method" value={method} onChange={(e) => setMethod(e.currentTarget.value)}>
              {METHODS.map((m) => (
                <option key={m}>{m}</option>
              ))}
            </select>
          </Field>
          <div class="combo">
            <Field label="Path" name="path">
              <input
                name="path"
                role="combobox"
                aria-autocomplete="list"
                aria-expanded={suggestions.length > 0}
                aria-controls="path-suggestions"
                aria-activedescendant={active >= 0 ? `path-suggestion-${active}` : undefined}
                autocomplete="off"
                spellcheck={false}
                placeholder="/collections/{collection_name}/points/query"
                value={path}
                onInput={(e) => {
                  setPath(e.currentTarget.value);
                  setOpen(true);
                  setActive(-1);
                }}
                onKeyDown={onPathKey}
                onBlur={() => setTimeout(() => setOpen(false), 150)}
              />
            </Field>
            {suggestions.length > 0 ? (
              <ul id="path-suggestions" role="listbox" class="suggestions" data-testid="path-suggestions">
                {suggestions.map((s, i) => (
                  <li
                    key={s}
                    id={`path-suggestion-${i}`}
                    role="option"
                    aria-selected={i === active}
                    onMouseDown={(e) => {
                      e.preventDefault();
                      pick(s);
                    }}
                  >
                    {s}
                  </li>
                ))}
              </ul>
            ) : null}
          </div>
        </div>
        <p class="muted" data-testid="route-info">
          {route
            ? `${route.method} ${route.path} · needs ${route.access} access`
            : path === ''
              ? 'Type a path: suggestions follow.'
              : 'No route of the API matches this method and path.'}
        </p>
        {hasBody ? (
          <>
            <Field label="Body (JSON)" name="body" error={bodyError}>
              <textarea
                name="body"
                rows={8}
                spellcheck={false}
                value={body}
                onInput={(e) => setBody(e.currentTarget.value)}
              />
            </Field>
            {fields.length > 0 ? (
              <div class="chips" role="group" aria-label="Add a body field" data-testid="body-fields">
                {fields.map((field) => (
                  <button
                    type="button"
                    key={field.name}
                    data-testid={`field-${field.name}`}
                    title={field.types.join(' | ')}
                    disabled={withField(body, field) === undefined}
                    onClick={() => setBody(withField(body, field) ?? body)}
                  >
                    {field.name}
                    {route?.required.includes(field.name) ? ' *' : ''}
                  </button>
                ))}
              </div>
            ) : null}
          </>
        ) : null}
        <ErrorText message={error} testId="console-error" />
        <button type="submit" class="primary" disabled={busy || path === ''}>
          Send
        </button>
      </form>
      {answer ? (
        <div class="card" data-testid="console-answer">
          <p class="muted">Answered in {answer.ms.toFixed(0)} ms.</p>
          {points ? (
            <PointsTable
              points={points}
              testId="console-points"
              collection={collection && decodeURIComponent(collection)}
            />
          ) : null}
          <JsonView value={answer.result} testId="console-json" />
        </div>
      ) : null}
      {history.length > 0 ? (
        <div class="card">
          <h3>History (this browser)</h3>
          <ol class="history" data-testid="console-history">
            {history.map((entry, i) => (
              <li key={i}>
                <button
                  type="button"
                  class="link"
                  onClick={() => {
                    setMethod(entry.method);
                    setPath(entry.path);
                    setBody(entry.body);
                  }}
                >
                  <code>
                    {entry.method} {entry.path}
                  </code>
                </button>
              </li>
            ))}
          </ol>
        </div>
      ) : null}
    </section>
  );
}

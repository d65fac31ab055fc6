import { useState } from 'preact/hooks';
import { parseJson, stringifyJson } from '../api/http';
import { deletePoints, overwritePayload } from '../api/points';
import type { Json, Point } from '../api/types';
import { collectionHref, pointHref } from '../router';
import { vectorSummary } from './format';
import { messageOf } from './hooks';
import { ConfirmButton, JsonView } from './widgets';

/**
 * Points as rows: id, score when there is one, payload as JSON text, vector summary. With `collection`, each row
 * links to the point's page and to "find similar"; with `writable`, its payload can be edited and the point deleted.
 */
export function PointsTable(props: {
  points: Point[];
  testId: string;
  collection?: string;
  writable?: boolean;
  onChange?: () => void;
}) {
  const { points, testId, collection } = props;
  const scored = points.some((p) => typeof p.score === 'number');
  const columns = 3 + (scored ? 1 : 0) + (collection ? 1 : 0);
  return (
    <table data-testid={testId} class="points">
      <thead>
        <tr>
          <th>Id</th>
          {scored ? <th class="num">Score</th> : null}
          <th>Payload</th>
          <th>Vector</th>
          {collection ? (
            <th>
              <span class="visually-hidden">Actions</span>
            </th>
          ) : null}
        </tr>
      </thead>
      <tbody>
        {points.map((point) => (
          <PointRow key={String(point.id)} point={point} scored={scored} {...props} />
        ))}
        {points.length === 0 ? (
          <tr>
            <td colSpan={columns} class="muted">
              No points.
            </td>
          </tr>
        ) : null}
      </tbody>
    </table>
  );
}

function PointRow(props: {
  point: Point;
  scored: boolean;
  collection?: string;
  writable?: boolean;
  onChange?: () => void;
}) {
  const { point, collection } = props;
  const id = String(point.id);
  const [editing, setEditing] = useState<string>();
  const [error, setError] = useState<string>();

  const save = async (): Promise<void> => {
    if (!collection || editing === undefined) return;
    let payload: Json;
    try {
      payload = parseJson(editing) as Json;
    } catch (failure) {
      return setError(`Invalid JSON: ${messageOf(failure)}`);
    }
    if (payload === null || typeof payload !== 'object' || Array.isArray(payload))
      return setError('A payload is a JSON object, e.g. {"city": "Berlin"}');
    try {
      await overwritePayload(collection, point.id, payload);
      setEditing(undefined);
      setError(undefined);
      props.onChange?.();
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  const remove = (): void => {
    if (!collection) return;
    deletePoints(collection, [point.id]).then(
      () => props.onChange?.(),
      (failure: unknown) => setError(messageOf(failure)),
    );
  };

  return (
    <tr data-testid={`point-${id}`}>
      <td>
        {collection ? (
          <a href={pointHref(collection, point.id)} aria-label={`Open point ${id}`}>
            <code>{id}</code>
          </a>
        ) : (
          <code>{id}</code>
        )}
      </td>
      {props.scored ? (
        <td class="num score">{typeof point.score === 'number' ? point.score.toFixed(4) : '—'}</td>
      ) : null}
      <td>
        {editing === undefined ? (
          <JsonView value={point.payload ?? null} />
        ) : (
          <label class="field">
            <span>Payload of point {id} (JSON; replaces the whole payload)</span>
            <textarea
              name="payload"
              rows={6}
              spellcheck={false}
              value={editing}
              aria-invalid={Boolean(error)}
              onInput={(e) => setEditing(e.currentTarget.value)}
            />
          </label>
        )}
        {error ? (
          <span class="field-error" role="alert" data-testid="point-error">
            {error}
          </span>
        ) : null}
      </td>
      <td>
        <pre class="vector">{vectorSummary(point.vector)}</pre>
      </td>
      {collection ? (
        <td>
          <div class="actions">
            <a class="button" href={collectionHref(collection, 'query', { similar: id })} data-testid="find-similar">
              Find similar
            </a>
            {props.writable ? (
              editing === undefined ? (
                <>
                  <button
                    data-testid="edit-payload"
                    onClick={() => setEditing(stringifyJson(point.payload ?? {}, 2))}
                    aria-label={`Edit the payload of point ${id}`}
                  >
                    Edit payload
                  </button>
                  <ConfirmButton label="Delete" testId="delete-point" onConfirm={remove} />
                </>
              ) : (
                <>
                  <button class="primary" data-testid="save-payload" onClick={() => void save()}>
                    Save payload
                  </button>
                  <button
                    onClick={() => {
                      setEditing(undefined);
                      setError(undefined);
                    }}
                  >
                    Cancel
                  </button>
                </>
              )
            ) : null}
          </div>
        </td>
      ) : null}
    </tr>
  );
}

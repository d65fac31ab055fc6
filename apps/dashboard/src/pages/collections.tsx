import { useState } from 'preact/hooks';
import { ApiError, request } from '../api/http';
import type { CollectionInfo } from '../api/types';
import { messageOf, useLoad } from '../ui/hooks';
import { fieldOfMessage } from '../ui/format';
import { parseSettings } from '../ui/parse';
import { ErrorText, Field, StatusDot } from '../ui/widgets';
import { collectionHref } from '../router';

interface Row {
  name: string;
  info?: CollectionInfo;
  error?: string;
}

async function loadCollections(): Promise<Row[]> {
  const { collections } = await request<{ collections: { name: string }[] }>('GET', '/collections');
  const names = collections.map((c) => c.name).sort();
  return Promise.all(
    names.map((name) =>
      request<CollectionInfo>('GET', `/collections/${encodeURIComponent(name)}`).then(
        (info): Row => ({ name, info }),
        (error: unknown): Row => ({ name, error: messageOf(error) }),
      ),
    ),
  );
}

const count = (n: number | null | undefined): string => (typeof n === 'number' ? n.toLocaleString('en') : '—');

/** Every collection with its status colour, point, vector and segment counts. */
export function CollectionsPage({ readOnly }: { readOnly: boolean }) {
  const rows = useLoad(loadCollections, 'collections');
  const [search, setSearch] = useState('');
  const wanted = search.trim().toLowerCase();
  const shown = (rows.data ?? []).filter((row) => row.name.toLowerCase().includes(wanted));
  return (
    <section>
      <h2>Collections</h2>
      <label class="field search">
        <span>Search collections by name</span>
        <input
          type="search"
          name="search"
          value={search}
          placeholder="name contains…"
          onInput={(e) => setSearch(e.currentTarget.value)}
        />
      </label>
      <ErrorText message={rows.error} />
      <table data-testid="collections-table">
        <thead>
          <tr>
            <th>Name</th>
            <th>Status</th>
            <th class="num">Points</th>
            <th class="num">Indexed vectors</th>
            <th class="num">Segments</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((row) => (
            <tr key={row.name} data-testid={`collection-row-${row.name}`}>
              <td>
                <a href={collectionHref(row.name)}>{row.name}</a>
              </td>
              <td>{row.info ? <StatusDot status={row.info.status} /> : <span class="error">{row.error}</span>}</td>
              <td class="num">{count(row.info?.points_count)}</td>
              <td class="num">{count(row.info?.indexed_vectors_count)}</td>
              <td class="num">{count(row.info?.segments_count)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {rows.data?.length === 0 ? <p class="muted">No collections yet.</p> : null}
      {rows.data && rows.data.length > 0 && shown.length === 0 ? (
        <p class="muted" data-testid="no-match">
          No collection name contains “{search.trim()}”.
        </p>
      ) : null}
      {readOnly ? null : <CreateCollectionForm onCreated={rows.reload} />}
    </section>
  );
}

const DISTANCES = ['Cosine', 'Euclid', 'Dot', 'Manhattan'] as const;

/**
 * Creates a collection with one dense vector. The rules (name characters and length, size 1..65536) are the
 * server's: it answers 422 with the field's path, and the message is shown next to that field.
 */
function CreateCollectionForm({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState('');
  const [size, setSize] = useState('4');
  const [distance, setDistance] = useState<string>('Cosine');
  const [extra, setExtra] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});

  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    const dims = Number(size);
    if (name === '') return setErrors({ name: 'A name is required' });
    if (!Number.isInteger(dims)) return setErrors({ size: 'The size must be a whole number' });
    const settings = parseSettings(extra);
    if (settings.error) return setErrors({ extra: settings.error });
    setErrors({});
    try {
      await request('PUT', `/collections/${encodeURIComponent(name)}`, {
        ...settings.value,
        vectors: { size: dims, distance },
      });
      setName('');
      setExtra('');
      onCreated();
    } catch (error) {
      const message = messageOf(error);
      const field =
        error instanceof ApiError
          ? fieldOfMessage(message, {
              name: ['collection_name', 'collection name', 'already exists'],
              size: ['vectors.size'],
              distance: ['vectors.distance'],
            })
          : undefined;
      // Anything about the other settings (hnsw_config, quantization_config, …) belongs to their editor.
      setErrors({
        [field ?? (extra.trim() !== '' && error instanceof ApiError && error.status < 500 ? 'extra' : 'form')]: message,
      });
    }
  };

  return (
    <form class="card" data-testid="create-collection-form" onSubmit={(event) => void submit(event)}>
      <h3>New collection</h3>
      <div class="row">
        <Field label="Name" name="name" error={errors.name}>
          <input name="name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
        <Field label="Vector size" name="size" error={errors.size}>
          <input name="size" type="number" value={size} onInput={(e) => setSize(e.currentTarget.value)} />
        </Field>
        <Field label="Distance" name="distance" error={errors.distance}>
          <select name="distance" value={distance} onChange={(e) => setDistance(e.currentTarget.value)}>
            {DISTANCES.map((d) => (
              <option key={d}>{d}</option>
            ))}
          </select>
        </Field>
      </div>
      <Field
        label="Other settings (optional JSON, as in the API: hnsw_config, quantization_config, …)"
        name="extra"
        error={errors.extra}
      >
        <textarea
          name="extra"
          rows={2}
          spellcheck={false}
          placeholder='{"hnsw_config": {"m": 32}, "on_disk_payload": true}'
          value={extra}
          onInput={(e) => setExtra(e.currentTarget.value)}
        />
      </Field>
      <ErrorText message={errors.form} testId="create-collection-error" />
      <button type="submit" class="primary">
        Create collection
      </button>
    </form>
  );
}

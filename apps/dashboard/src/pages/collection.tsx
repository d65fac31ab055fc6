import { useState } from 'preact/hooks';
import { request, stringifyJson } from '../api/http';
import type { Alias, CollectionClusterInfo, CollectionInfo } from '../api/types';
import { CollectionNav } from '../ui/collection-nav';
import { canWrite } from '../api/session';
import { messageOf, useLoad, useSession } from '../ui/hooks';
import { SettingsForm } from '../ui/settings-form';
import { fieldOfMessage } from '../ui/format';
import { ConfirmButton, ErrorText, Field, JsonView, StatusDot } from '../ui/widgets';

const path = (name: string, rest = ''): string => `/collections/${encodeURIComponent(name)}${rest}`;

interface Details {
  info: CollectionInfo;
  aliases: Alias[];
  cluster: CollectionClusterInfo;
}

async function loadDetails(name: string): Promise<Details> {
  const [info, aliases, cluster] = await Promise.all([
    request<CollectionInfo>('GET', path(name)),
    request<{ aliases: Alias[] }>('GET', path(name, '/aliases')),
    request<CollectionClusterInfo>('GET', path(name, '/cluster')),
  ]);
  return { info, aliases: aliases.aliases, cluster };
}

/** One collection: its full config, payload indexes, aliases and shards. */
export function CollectionPage({ name, readOnly }: { name: string; readOnly: boolean }) {
  const details = useLoad(() => loadDetails(name), `collection:${name}`);
  // Payload indexes need write access to this collection (an `rw` grant will do); the rest needs manage access.
  const writable = canWrite(useSession(), name);
  const [error, setError] = useState<string>();
  const info = details.data?.info;
  const config = info?.config;

  const remove = (): void => {
    request('DELETE', path(name)).then(
      () => (location.hash = '#/collections'),
      (failure: unknown) => setError(messageOf(failure)),
    );
  };

  return (
    <section>
      <CollectionNav name={name} />
      <ErrorText message={details.error ?? error} testId="collection-error" />
      {info && config && details.data ? (
        <>
          <div class="stats">
            <div>
              Status <StatusDot status={info.status} />
            </div>
            <div>
              Points <strong data-testid="points-count">{info.points_count ?? '—'}</strong>
            </div>
            <div>
              Indexed vectors <strong>{info.indexed_vectors_count ?? '—'}</strong>
            </div>
            <div>
              Segments <strong>{info.segments_count ?? '—'}</strong>
            </div>
            <div>
              Optimizer <code>{stringifyJson(info.optimizer_status ?? null)}</code>
            </div>
          </div>
          <div class="grid">
            <ConfigBlock
              title="Vectors"
              value={{ vectors: config.params.vectors, sparse_vectors: config.params.sparse_vectors }}
            />
            <ConfigBlock title="HNSW" value={config.hnsw_config} />
            <ConfigBlock title="Quantization" value={config.quantization_config ?? null} />
            <ConfigBlock title="Optimizers" value={config.optimizer_config} />
            <ConfigBlock title="WAL" value={config.wal_config} />
            <ConfigBlock title="Strict mode" value={config.strict_mode_config ?? null} />
            <ConfigBlock title="Collection parameters" value={config.params} />
          </div>
          {readOnly ? null : <SettingsForm name={name} info={info} onSaved={details.reload} />}
          <PayloadIndexes name={name} info={info} readOnly={!writable} onChange={details.reload} />
          <Aliases name={name} aliases={details.data.aliases} readOnly={readOnly} onChange={details.reload} />
          <ShardTable cluster={details.data.cluster} />
          {readOnly ? null : (
            <div class="card danger-zone">
              <h3>Delete this collection</h3>
              <p class="muted">Its points, indexes and aliases go too.</p>
              <ConfirmButton label="Delete collection" testId="delete-collection" onConfirm={remove} />
            </div>
          )}
        </>
      ) : null}
    </section>
  );
}

function ConfigBlock({ title, value }: { title: string; value: unknown }) {
  return (
    <div class="card">
      <h3>{title}</h3>
      <JsonView value={value} />
    </div>
  );
}

const SCHEMAS = ['keyword', 'integer', 'float', 'bool', 'geo', 'text', 'datetime', 'uuid'];

function PayloadIndexes(props: { name: string; info: CollectionInfo; readOnly: boolean; onChange: () => void }) {
  const [field, setField] = useState('');
  const [schema, setSchema] = useState('keyword');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const entries = Object.entries(props.info.payload_schema ?? {});

  const create = async (event: Event): Promise<void> => {
    event.preventDefault();
    setErrors({});
    try {
      await request('PUT', path(props.name, '/index?wait=true'), { field_name: field, field_schema: schema });
      setField('');
      props.onChange();
    } catch (error) {
      const message = messageOf(error);
      const at = fieldOfMessage(message, { field: ['field_name', 'payload key'], schema: ['field_schema'] });
      setErrors({ [at ?? 'form']: message });
    }
  };
  const remove = (key: string): void => {
    request('DELETE', path(props.name, `/index/${encodeURIComponent(key)}?wait=true`)).then(
      props.onChange,
      (error: unknown) => setErrors({ form: messageOf(error) }),
    );
  };

  return (
    <div class="card">
      <h3>Payload indexes</h3>
      <table data-testid="payload-indexes">
        <thead>
          <tr>
            <th>Field</th>
            <th>Type</th>
            <th class="num">Points</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {entries.map(([key, index]) => (
            <tr key={key}>
              <td>
                <code>{key}</code>
              </td>
              <td>{index.data_type ?? '—'}</td>
              <td class="num">{index.points ?? '—'}</td>
              <td>
                {props.readOnly ? null : (
                  <ConfirmButton label="Delete" testId={`delete-index-${key}`} onConfirm={() => remove(key)} />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {entries.length === 0 ? <p class="muted">No payload indexes.</p> : null}
      {props.readOnly ? null : (
        <form class="row" data-testid="create-index-form" onSubmit={(event) => void create(event)}>
          <Field label="Field" name="field" error={errors.field}>
            <input name="field" value={field} onInput={(e) => setField(e.currentTarget.value)} />
          </Field>
          <Field label="Type" name="schema" error={errors.schema}>
            <select name="schema" value={schema} onChange={(e) => setSchema(e.currentTarget.value)}>
              {SCHEMAS.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          </Field>
          <button type="submit">Create index</button>
        </form>
      )}
      <ErrorText message={errors.form} />
    </div>
  );
}

function Aliases(props: { name: string; aliases: Alias[]; readOnly: boolean; onChange: () => void }) {
  const [alias, setAlias] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const change = (action: unknown): Promise<unknown> => request('POST', '/collections/aliases', { actions: [action] });

  const create = async (event: Event): Promise<void> => {
    event.preventDefault();
    setErrors({});
    try {
      await change({ create_alias: { collection_name: props.name, alias_name: alias } });
      setAlias('');
      props.onChange();
    } catch (error) {
      const message = messageOf(error);
      setErrors({ [fieldOfMessage(message, { alias: ['alias_name', 'alias'] }) ?? 'form']: message });
    }
  };
  const remove = (aliasName: string): void => {
    change({ delete_alias: { alias_name: aliasName } }).then(props.onChange, (error: unknown) =>
      setErrors({ form: messageOf(error) }),
    );
  };

  return (
    <div class="card">
      <h3>Aliases</h3>
      <ul data-testid="aliases">
        {props.aliases.map((a) => (
          <li key={a.alias_name}>
            <code>{a.alias_name}</code>{' '}
            {props.readOnly ? null : (
              <ConfirmButton
                label="Delete"
                testId={`delete-alias-${a.alias_name}`}
                onConfirm={() => remove(a.alias_name)}
              />
            )}
          </li>
        ))}
      </ul>
      {props.aliases.length === 0 ? <p class="muted">No aliases.</p> : null}
      {props.readOnly ? null : (
        <form class="row" data-testid="create-alias-form" onSubmit={(event) => void create(event)}>
          <Field label="Alias" name="alias" error={errors.alias}>
            <input name="alias" value={alias} onInput={(e) => setAlias(e.currentTarget.value)} />
          </Field>
          <button type="submit">Create alias</button>
        </form>
      )}
      <ErrorText message={errors.form} />
    </div>
  );
}

export function ShardTable({ cluster, collection }: { cluster: CollectionClusterInfo; collection?: string }) {
  const shards = [
    ...cluster.local_shards.map((s) => ({ ...s, peer: String(cluster.peer_id), where: 'local' })),
    ...cluster.remote_shards.map((s) => ({ ...s, peer: String(s.peer_id ?? '?'), where: 'remote' })),
  ];
  return (
    <div class="card">
      <h3>Shards{collection ? ` of ${collection}` : ''}</h3>
      <table data-testid={`shards${collection ? `-${collection}` : ''}`}>
        <thead>
          <tr>
            <th>Shard</th>
            <th>Peer</th>
            <th>Where</th>
            <th>State</th>
            <th class="num">Points</th>
          </tr>
        </thead>
        <tbody>
          {shards.map((s) => (
            <tr key={`${s.where}-${s.shard_id}-${s.peer}`}>
              <td>{s.shard_id}</td>
              <td>
                <code>{s.peer}</code>
              </td>
              <td>{s.where}</td>
              <td>
                <span class={`state state-${(s.state ?? '').toLowerCase()}`}>{s.state ?? '—'}</span>
              </td>
              <td class="num">{s.points_count ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="muted">
        {cluster.shard_transfers.length === 0
          ? 'No shard transfers in progress.'
          : `${cluster.shard_transfers.length} shard transfer(s) in progress:`}
      </p>
      {cluster.shard_transfers.length > 0 ? <JsonView value={cluster.shard_transfers} /> : null}
    </div>
  );
}

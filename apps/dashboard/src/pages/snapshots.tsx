import { useState } from 'preact/hooks';
import { request } from '../api/http';
import { canWrite } from '../api/session';
import {
  type SnapshotInfo,
  type SnapshotScope,
  createSnapshot,
  deleteSnapshot,
  downloadSnapshot,
  listSnapshots,
  recoverSnapshot,
  saveBlob,
  uploadSnapshot,
} from '../api/snapshots';
import type { CollectionClusterInfo } from '../api/types';
import { CollectionNav } from '../ui/collection-nav';
import { messageOf, useLoad, useSession } from '../ui/hooks';
import { shortTime } from '../ui/accounts';
import { bytes, progressText } from '../ui/size';
import { ConfirmButton, ErrorText, Field } from '../ui/widgets';

const scopeKey = (scope: SnapshotScope): string =>
  scope.kind === 'full' ? 'full' : `${scope.collection}/${scope.shard ?? ''}`;

const scopeLabel = (scope: SnapshotScope): string =>
  scope.kind === 'full'
    ? 'the whole node'
    : scope.shard === undefined
      ? `collection ${scope.collection}`
      : `shard ${scope.shard} of ${scope.collection}`;

/** What one long transfer is doing now, for the progress bar. */
interface Transfer {
  label: string;
  loaded: number;
  total?: number;
}

/**
 * Snapshots of the node, of a collection or of one shard: list, create, download, upload (restoring from it),
 * restore a listed one, recover from a URL, delete. `collection` given: the collection's tab, scope chosen within it.
 */
export function SnapshotsPage({ collection }: { collection?: string }) {
  const session = useSession();
  const names = useLoad(
    () =>
      collection !== undefined
        ? Promise.resolve([collection])
        : request<{ collections: { name: string }[] }>('GET', '/collections').then((answer) =>
            answer.collections.map((c) => c.name).sort(),
          ),
    `snapshot-collections:${collection ?? ''}`,
  );
  const [chosen, setChosen] = useState<string>(collection ?? '');
  const [shard, setShard] = useState<string>('');
  const scope: SnapshotScope =
    chosen === ''
      ? { kind: 'full' }
      : { kind: 'collection', collection: chosen, shard: shard === '' ? undefined : Number(shard) };
  const shards = useLoad(
    () =>
      chosen === ''
        ? Promise.resolve([] as number[])
        : request<CollectionClusterInfo>('GET', `/collections/${encodeURIComponent(chosen)}/cluster`).then((info) =>
            info.local_shards.map((s) => s.shard_id).sort((a, b) => a - b),
          ),
    `snapshot-shards:${chosen}`,
  );
  const manage = session.kind !== 'signed-out' && !session.readOnly;
  const write = scope.kind === 'full' ? manage : canWrite(session, scope.collection);

  return (
    <section>
      {collection !== undefined ? <CollectionNav name={collection} current="snapshots" /> : <h2>Snapshots</h2>}
      <ErrorText message={names.error} />
      <div class="row card" data-testid="snapshot-scope">
        {collection === undefined ? (
          <Field label="Snapshots of" name="scope-collection">
            <select
              name="scope-collection"
              value={chosen}
              onChange={(e) => {
                setChosen(e.currentTarget.value);
                setShard('');
              }}
            >
              <option value="">the whole node (every collection)</option>
              {(names.data ?? []).map((name) => (
                <option key={name} value={name}>
                  collection {name}
                </option>
              ))}
            </select>
          </Field>
        ) : null}
        {chosen !== '' ? (
          <Field label="Part" name="scope-shard">
            <select name="scope-shard" value={shard} onChange={(e) => setShard(e.currentTarget.value)}>
              <option value="">the whole collection</option>
              {(shards.data ?? []).map((id) => (
                <option key={id} value={String(id)}>
                  shard {id} (on this node)
                </option>
              ))}
            </select>
          </Field>
        ) : null}
      </div>
      <SnapshotList key={scopeKey(scope)} scope={scope} write={write} manage={manage} />
    </section>
  );
}

function SnapshotList({ scope, write, manage }: { scope: SnapshotScope; write: boolean; manage: boolean }) {
  const list = useLoad(() => listSnapshots(scope), `snapshots:${scopeKey(scope)}`);
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [transfer, setTransfer] = useState<Transfer>();
  const [busy, setBusy] = useState(false);

  /** One action at a time; its outcome is said under the list, and the list is read again. */
  const act = async (work: () => Promise<string>): Promise<void> => {
    setBusy(true);
    setError(undefined);
    setNotice(undefined);
    try {
      setNotice(await work());
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
      setTransfer(undefined);
      list.reload();
    }
  };
  const download = (snapshot: SnapshotInfo): Promise<Blob> =>
    downloadSnapshot(scope, snapshot.name, (loaded, total) =>
      setTransfer({ label: `Downloading ${snapshot.name}`, loaded, total: total ?? snapshot.size }),
    );
  const upload = (file: Blob, name: string): Promise<void> =>
    uploadSnapshot(scope, file, name, (loaded, total) => setTransfer({ label: `Uploading ${name}`, loaded, total }));

  return (
    <div class="card">
      <h3>Snapshots of {scopeLabel(scope)}</h3>
      <ErrorText message={list.error} testId="snapshots-error" />
      <table data-testid="snapshots-table">
        <thead>
          <tr>
            <th>Name</th>
            <th>Created</th>
            <th class="num">Size</th>
            <th>Checksum (SHA-256)</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(list.data ?? []).map((snapshot) => (
            <tr key={snapshot.name} data-testid={`snapshot-${snapshot.name}`}>
              <td>
                <code>{snapshot.name}</code>
              </td>
              <td>{snapshot.creation_time ? shortTime(`${snapshot.creation_time.replace(/Z?$/, '')}Z`) : '—'}</td>
              <td class="num">{bytes(snapshot.size)}</td>
              <td>
                <code title={snapshot.checksum ?? undefined}>{(snapshot.checksum ?? '—').slice(0, 12)}</code>
              </td>
              <td>
                <div class="actions">
                  <button
                    data-testid="snapshot-download"
                    disabled={busy}
                    onClick={() =>
                      void act(async () => {
                        saveBlob(await download(snapshot), snapshot.name);
                        return `Downloaded ${snapshot.name}.`;
                      })
                    }
                  >
                    Download
                  </button>
                  {manage ? (
                    <ConfirmButton
                      label="Restore"
                      testId="snapshot-restore"
                      onConfirm={() =>
                        void act(async () => {
                          // Through the browser: the server takes an upload, whatever node or folder it came from.
                          await upload(await download(snapshot), snapshot.name);
                          return `Restored ${scopeLabel(scope)} from ${snapshot.name}.`;
                        })
                      }
                    />
                  ) : null}
                  {write ? (
                    <ConfirmButton
                      label="Delete"
                      testId="snapshot-delete"
                      onConfirm={() =>
                        void act(async () => {
                          await deleteSnapshot(scope, snapshot.name);
                          return `Deleted ${snapshot.name}.`;
                        })
                      }
                    />
                  ) : null}
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {list.data?.length === 0 ? <p class="muted">No snapshots yet.</p> : null}
      {transfer ? (
        <p data-testid="snapshot-progress">
          <label>
            {transfer.label}: {progressText(transfer.loaded, transfer.total)}{' '}
            <progress value={transfer.loaded} max={transfer.total ?? undefined} />
          </label>
        </p>
      ) : null}
      {busy && !transfer ? <p class="muted">Working…</p> : null}
      <ErrorText message={error} testId="snapshot-action-error" />
      {notice ? (
        <p class="notice" role="status" data-testid="snapshot-notice">
          {notice}
        </p>
      ) : null}
      {write ? (
        <button
          class="primary"
          data-testid="snapshot-create"
          disabled={busy}
          onClick={() => void act(async () => `Created ${(await createSnapshot(scope)).name}.`)}
        >
          Create a snapshot
        </button>
      ) : null}
      {manage ? <UploadForms scope={scope} busy={busy} act={act} upload={upload} /> : null}
    </div>
  );
}

function UploadForms(props: {
  scope: SnapshotScope;
  busy: boolean;
  act: (work: () => Promise<string>) => Promise<void>;
  upload: (file: Blob, name: string) => Promise<void>;
}) {
  const [file, setFile] = useState<File>();
  const [location, setLocation] = useState('');
  return (
    <div class="row">
      <form
        class="row"
        data-testid="snapshot-upload-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (!file) return;
          void props.act(async () => {
            await props.upload(file, file.name);
            return `Restored ${scopeLabel(props.scope)} from ${file.name}.`;
          });
        }}
      >
        <Field label="Upload a snapshot file and restore from it" name="snapshot-file">
          <input
            name="snapshot-file"
            type="file"
            accept=".snapshot"
            onChange={(e) => setFile(e.currentTarget.files?.[0])}
          />
        </Field>
        <button type="submit" disabled={props.busy || !file}>
          Upload and restore
        </button>
      </form>
      <form
        class="row"
        data-testid="snapshot-recover-form"
        onSubmit={(event) => {
          event.preventDefault();
          void props.act(async () => {
            await recoverSnapshot(props.scope, location.trim());
            return `Recovered ${scopeLabel(props.scope)} from ${location.trim()}.`;
          });
        }}
      >
        <Field label="Or recover from a location the server reads (file:///… or http(s)://…)" name="location">
          <input name="location" value={location} onInput={(e) => setLocation(e.currentTarget.value)} />
        </Field>
        <button type="submit" disabled={props.busy || location.trim() === ''}>
          Recover
        </button>
      </form>
    </div>
  );
}

// Test-only helpers for libs/snapshots specs (tsconfig.build.json excludes libs/**/testing): temporary folders,
// hand-made tar archives (good and malicious) written header by header with node-tar's Header and Pax, and
// catching DomainErrors.
import { DomainError } from '@vectorstore/common';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Header, type HeaderData, Pax } from 'tar';
import { MANIFEST_ENTRY, SNAPSHOT_FORMAT, SNAPSHOT_FORMAT_VERSION } from '../snapshot-manifest';

export function makeTempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function removeTempDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

export function sha256(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Every path under `dir` (folders end in `/`, links show their target), sorted: to prove nothing else appeared. */
export function listTree(dir: string): string[] {
  const found: string[] = [];
  const walk = (relative: string) => {
    for (const entry of fs.readdirSync(path.join(dir, relative), { withFileTypes: true })) {
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        found.push(`${child}/`);
        walk(child);
      } else if (entry.isSymbolicLink()) {
        found.push(`${child} -> ${fs.readlinkSync(path.join(dir, child))}`);
      } else {
        found.push(child);
      }
    }
  };
  walk('');
  return found.sort();
}

/** The DomainError a promise rejects with; fails the test when it resolves or rejects with something else. */
export async function domainErrorOf(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError, but the promise resolved');
}

export interface RawEntry {
  readonly path: string;
  readonly type?: HeaderData['type'];
  readonly data?: Buffer | string;
  /** The size written in the header; defaults to the data's length. */
  readonly size?: number;
  readonly linkpath?: string;
  /** Put the path in a pax extended header (and a harmless name in the ustar header). */
  readonly paxPath?: boolean;
}

/** One tar entry: [pax header], ustar header, data, zero padding to 512. */
export function tarEntry(entry: RawEntry): Buffer {
  const data = Buffer.from(entry.data ?? '');
  const size = entry.size ?? data.length;
  const mtime = new Date('2024-07-22T08:31:55Z');
  const header = new Header({
    path: entry.paxPath ? 'placeholder' : entry.path,
    type: entry.type ?? 'File',
    size: entry.type === undefined || entry.type === 'File' ? size : 0,
    mode: 0o644,
    uid: 0,
    gid: 0,
    mtime,
    linkpath: entry.linkpath ?? '',
    uname: '',
    gname: '',
  });
  header.encode();
  const parts: Buffer[] = [];
  if (entry.paxPath) parts.push(new Pax({ path: entry.path, mtime }).encode());
  parts.push(header.block as Buffer, data);
  const padding = (512 - (data.length % 512)) % 512;
  parts.push(Buffer.alloc(padding));
  return Buffer.concat(parts);
}

export const TAR_END = Buffer.alloc(1024);

export interface ManifestOverrides {
  readonly [key: string]: unknown;
}

/** A valid version 1 collection manifest for `files` (size and sha256 computed), with overrides. */
export function manifestFor(
  files: readonly { path: string; data: Buffer | string }[],
  overrides: ManifestOverrides = {},
) {
  return {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_FORMAT_VERSION,
    kind: 'collection',
    created_at: '2024-07-22T08:31:55.000Z',
    peer_id: '3766212330831337',
    collections: ['my-collection'],
    files: files.map((file) => ({
      path: file.path,
      size: Buffer.byteLength(file.data),
      sha256: sha256(Buffer.from(file.data)),
    })),
    ...overrides,
  };
}

export function manifestEntry(manifest: unknown): Buffer {
  return tarEntry({ path: MANIFEST_ENTRY, data: JSON.stringify(manifest) });
}

/** Writes `bytes` to `archivePath`, and `<archivePath>.sha256` (sha256sum format) unless `sidecar` is false. */
export function writeArchive(archivePath: string, bytes: Buffer, sidecar = true): void {
  fs.mkdirSync(path.dirname(archivePath), { recursive: true });
  fs.writeFileSync(archivePath, bytes);
  if (sidecar) fs.writeFileSync(`${archivePath}.sha256`, `${sha256(bytes)}  ${path.basename(archivePath)}\n`);
}

/** A deterministic, incompressible-looking buffer of `size` bytes. */
export function pseudoRandomBytes(size: number, seed = 1): Buffer {
  const buffer = Buffer.allocUnsafe(size);
  let state = seed >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    buffer[i] = state & 0xff;
  }
  return buffer;
}

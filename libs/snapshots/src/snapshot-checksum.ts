// The whole-archive checksum: sha256 hex, kept beside the archive in `<name>.sha256` in sha256sum's format.
import { DomainError } from '@vectorstore/common';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { invalidSnapshot } from './snapshot-errors';

export const CHECKSUM_SUFFIX = '.sha256';
/** Chunk size for streaming reads: memory stays at this, whatever the file's size. */
export const STREAM_CHUNK_BYTES = 1024 * 1024;

/** `<archive path>.sha256` */
export function checksumPathFor(archivePath: string): string {
  return `${archivePath}${CHECKSUM_SUFFIX}`;
}

/** The sidecar's content, as `sha256sum` prints it: `<hex>  <name>` and a newline (`sha256sum -c` reads it). */
export function formatChecksumFile(sha256: string, name: string): string {
  return `${sha256}  ${name}\n`;
}

/**
 * The hex digest in a sidecar: sha256sum's `<hex>  <name>` or `<hex> *<name>`, or a bare `<hex>` (as Qdrant's
 * `.checksum` files hold). The name is not compared: a renamed snapshot keeps a valid sidecar.
 */
export function parseChecksumFile(text: string, fileName: string): string {
  const match = /^([0-9a-fA-F]{64})(?:[ \t]+\*?[^\r\n]+)?$/.exec(text.trim());
  if (!match) throw invalidSnapshot(`checksum file ${fileName} is not in sha256sum format (<64 hex digits>  <name>)`);
  return match[1].toLowerCase();
}

/** The checksum in `<archivePath>.sha256`, or undefined when there is no such file. */
export async function readSidecarChecksum(archivePath: string): Promise<string | undefined> {
  const sidecar = checksumPathFor(archivePath);
  let text: string;
  try {
    const stat = await fs.lstat(sidecar);
    if (!stat.isFile() || stat.size > 4096)
      throw invalidSnapshot(`checksum file ${sidecar} is not a small regular file`);
    text = await fs.readFile(sidecar, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return parseChecksumFile(text, sidecar);
}

/**
 * A checksum given by a client, lowercased: 64 hex digits, either case (Qdrant's `validate_sha256_hash`);
 * anything else is an INVALID_ARGUMENT.
 */
export function normalizeChecksum(checksum: string): string {
  if (!/^[0-9a-fA-F]{64}$/.test(checksum)) {
    throw DomainError.invalidArgument(
      `Bad request: checksum must be a sha256 digest of 64 hexadecimal characters, got ${JSON.stringify(checksum.slice(0, 80))}`,
    );
  }
  return checksum.toLowerCase();
}

/**
 * The `?checksum` of an upload, checked before the upload is read (Qdrant validates its query
 * first): 422 naming the rule `invalid_sha256_hash`, as Qdrant's validator does.
 */
export function checkChecksumParam(checksum: string | undefined): void {
  if (checksum === undefined || /^[0-9a-fA-F]{64}$/.test(checksum)) return;
  const why =
    checksum.length !== 64 ? `length ${checksum.length}, expected 64` : 'invalid characters, expected 0-9, a-f, A-F';
  throw DomainError.validation([`checksum: invalid_sha256_hash (${why})`], 'query');
}

/** sha256 and size of a file, read in chunks (memory bounded by {@link STREAM_CHUNK_BYTES}). */
export async function sha256OfFile(filePath: string): Promise<{ sha256: string; size: number }> {
  const handle = await fs.open(filePath, 'r');
  try {
    return await sha256OfHandle(handle);
  } finally {
    await handle.close();
  }
}

/** sha256 and size of an open file's whole content, read from offset 0 in chunks. */
export async function sha256OfHandle(handle: FileHandle): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(STREAM_CHUNK_BYTES);
  let size = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, size);
    if (bytesRead === 0) break;
    hash.update(buffer.subarray(0, bytesRead));
    size += bytesRead;
  }
  return { sha256: hash.digest('hex'), size };
}

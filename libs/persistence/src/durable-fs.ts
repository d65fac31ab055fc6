import { constants, Dirent, promises as fs, writeSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { FaultInjector, faultState, FileOpKind } from './fault-injection';

/**
 * The file operations that change what the project keeps on disk, in one place so that a test can count them
 * and fail or crash any one of them (fault-injection.ts). With no injector on, each is the `fs` call it wraps
 * plus one property read: no extra await, no allocation.
 */

/** The path each handle opened here was opened at (a handle only knows its descriptor). */
const handlePaths = new WeakMap<FileHandle, string>();

/** Flags that may create or truncate a file. */
function mayCreate(flags: string | number): boolean {
  if (typeof flags === 'number') return (flags & (constants.O_CREAT | constants.O_TRUNC)) !== 0;
  return /[wa]/.test(flags);
}

/** The error an injector wants thrown for an operation on `filePath` (to `target`), if one is on and wants it. */
function refusal(kind: FileOpKind, filePath: string, target?: string): Error | undefined {
  const faults = faultState.active;
  return faults === undefined ? undefined : faults.before(kind, filePath, undefined, target);
}

/** As {@link refusal}, for an operation on a handle (whose path is known when it was opened here). */
function handleRefusal(
  faults: FaultInjector,
  kind: FileOpKind,
  handle: FileHandle,
  tear?: () => void,
): Error | undefined {
  const filePath = handlePaths.get(handle);
  return filePath === undefined ? undefined : faults.before(kind, filePath, tear);
}

/** `fs.open`; counted as `create` when the flags may create or truncate the file. */
function open(filePath: string, flags: string | number, mode?: number): Promise<FileHandle> {
  if (faultState.active !== undefined && mayCreate(flags)) {
    const error = refusal('create', filePath);
    if (error !== undefined) return Promise.reject(error);
  }
  return fs.open(filePath, flags, mode).then((handle) => {
    handlePaths.set(handle, filePath);
    return handle;
  });
}

/** `FileHandle#write` of `length` bytes of `buffer` from `offset`, at `position` (null: the current position). */
function write(
  handle: FileHandle,
  buffer: Uint8Array,
  offset: number,
  length: number,
  position: number | null,
): Promise<{ bytesWritten: number; buffer: Uint8Array }> {
  const faults = faultState.active;
  if (faults !== undefined) {
    // A torn write: the first half of the bytes reach the file before the crash.
    const tear = (): void => void writeSync(handle.fd, buffer, offset, length >> 1, position);
    const error = handleRefusal(faults, 'write', handle, tear);
    if (error !== undefined) return Promise.reject(error);
  }
  return handle.write(buffer, offset, length, position);
}

/** Writes all of `data` at `position`, however many writes that takes (each one counted). */
async function writeAll(handle: FileHandle, data: Uint8Array, position: number): Promise<void> {
  for (let done = 0; done < data.length;) {
    const { bytesWritten } = await write(handle, data, done, data.length - done, position + done);
    if (bytesWritten <= 0) throw new Error(`write made no progress at offset ${position + done}`);
    done += bytesWritten;
  }
}

/** `FileHandle#sync` (fsync). */
function sync(handle: FileHandle): Promise<void> {
  const faults = faultState.active;
  if (faults !== undefined) {
    const error = handleRefusal(faults, 'fsync', handle);
    if (error !== undefined) return Promise.reject(error);
  }
  return handle.sync();
}

/** `FileHandle#datasync` (fdatasync). */
function datasync(handle: FileHandle): Promise<void> {
  const faults = faultState.active;
  if (faults !== undefined) {
    const error = handleRefusal(faults, 'fsync', handle);
    if (error !== undefined) return Promise.reject(error);
  }
  return handle.datasync();
}

/** `FileHandle#truncate`. */
function truncate(handle: FileHandle, length: number): Promise<void> {
  const faults = faultState.active;
  if (faults !== undefined) {
    const error = handleRefusal(faults, 'truncate', handle);
    if (error !== undefined) return Promise.reject(error);
  }
  return handle.truncate(length);
}

/** Makes a rename, link, creation or removal inside `dir` durable (fsync of the folder). */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    const error = refusal('fsync', dir);
    if (error !== undefined) throw error;
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function rename(from: string, to: string): Promise<void> {
  const error = refusal('rename', from, to);
  return error === undefined ? fs.rename(from, to) : Promise.reject(error);
}

function link(existing: string, newPath: string): Promise<void> {
  const error = refusal('link', existing, newPath);
  return error === undefined ? fs.link(existing, newPath) : Promise.reject(error);
}

function unlink(filePath: string): Promise<void> {
  const error = refusal('remove', filePath);
  return error === undefined ? fs.unlink(filePath) : Promise.reject(error);
}

function copyFile(from: string, to: string, mode?: number): Promise<void> {
  const error = refusal('copy', from, to);
  return error === undefined ? fs.copyFile(from, to, mode) : Promise.reject(error);
}

/** `fs.mkdir`; resolves with the first folder created, as `fs.mkdir` with `recursive`. */
function mkdir(dir: string, options?: { recursive?: boolean; mode?: number }): Promise<string | undefined> {
  return faultState.active === undefined ? fs.mkdir(dir, options) : mkdirCounted(dir, options);
}

async function mkdirCounted(
  dir: string,
  options?: { recursive?: boolean; mode?: number },
): Promise<string | undefined> {
  // A recursive mkdir of a folder that exists changes nothing on disk: nothing for a crash or a full disk to hit.
  const exists = await fs.stat(dir).then(
    (stats) => stats.isDirectory(),
    () => false,
  );
  if (!(options?.recursive && exists)) {
    const error = refusal('mkdir', dir);
    if (error !== undefined) throw error;
  }
  return fs.mkdir(dir, options);
}

/** `fs.mkdtemp` (counted as a `mkdir` at `prefix`). */
function mkdtemp(prefix: string): Promise<string> {
  const error = refusal('mkdir', prefix);
  return error === undefined ? fs.mkdtemp(prefix) : Promise.reject(error);
}

/**
 * `fs.rm`. While faults are injected a recursive removal walks the tree itself, counting each unlink and rmdir,
 * so that a crash can stop it half-way as a real one would.
 */
function rm(target: string, options?: { recursive?: boolean; force?: boolean }): Promise<void> {
  const faults = faultState.active;
  if (faults === undefined) return fs.rm(target, options);
  if (options?.recursive) return removeTree(target, options.force === true);
  const error = faults.before('remove', target);
  return error === undefined ? fs.rm(target, options) : Promise.reject(error);
}

async function removeTree(target: string, force: boolean): Promise<void> {
  let entries: Dirent[] | undefined;
  try {
    entries = await fs.readdir(target, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && force) return;
    if (code !== 'ENOTDIR') throw error;
  }
  if (entries === undefined) return unlink(target);
  for (const entry of entries) {
    const child = path.join(target, entry.name);
    if (entry.isDirectory()) await removeTree(child, force);
    else await unlink(child);
  }
  const error = refusal('remove', target);
  if (error !== undefined) throw error;
  await fs.rmdir(target);
}

/** Writes a new file durably (not atomically): create, write, fsync it and its folder. */
async function writeFile(filePath: string, data: string | Uint8Array, mode = 0o600): Promise<void> {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  const handle = await open(filePath, 'w', mode);
  try {
    await writeAll(handle, bytes, 0);
    await sync(handle);
  } finally {
    await handle.close();
  }
  await syncDirectory(path.dirname(filePath));
}

/**
 * Copies the folder `from` to `to` (which must not exist) durably: every regular file copied and fsynced, every
 * folder fsynced, and `to` in its parent. Anything but files and folders is refused.
 */
async function copyTree(from: string, to: string): Promise<void> {
  await copyTreeInto(from, to);
  await syncDirectory(path.dirname(to));
}

async function copyTreeInto(from: string, to: string): Promise<void> {
  await mkdir(to, { mode: 0o700 });
  const entries = await fs.readdir(from, { withFileTypes: true });
  for (const entry of entries) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) await copyTreeInto(source, target);
    else if (entry.isFile()) {
      await copyFile(source, target, constants.COPYFILE_EXCL);
      const handle = await open(target, 'r+');
      try {
        await sync(handle);
      } finally {
        await handle.close();
      }
    } else throw new Error(`${source} is neither a file nor a folder`);
  }
  await syncDirectory(to);
}

/**
 * The project's durable file operations (see the top of this file). Use these, not `fs`, for anything that
 * writes, syncs, renames, links or removes a file the server keeps, so fault-injection tests reach it.
 */
export const durableFs = {
  open,
  write,
  writeAll,
  sync,
  datasync,
  truncate,
  syncDirectory,
  rename,
  link,
  unlink,
  copyFile,
  mkdir,
  mkdtemp,
  rm,
  writeFile,
  copyTree,
};

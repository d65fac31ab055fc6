import { DamagedFileError, KeyedMutex, stringifyJson } from '@vectorstore/common';
import { durableFs, removeStaleTemporaryFiles, writeFileAtomic } from '@vectorstore/persistence';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { checksumOf, FileChecksum } from '../file-checksum';
import { Segment } from '../segment';
import { VectorSpace } from '../vector-space';
import { FieldIndexSchema } from './field-index-schema';
import { Manifest, MANIFEST_FILE, manifestText, readManifest } from './manifest-file';
import type { RecoveryPoint } from './shard-clocks';
import { linkManifestFiles } from './shard-checkpoint';
import { encodeSegmentDeletes } from './segment-deletes';
import { bodyFileName, deletesFileName, removeFilesNotKept } from './segment-files';
import { loadListedSegment } from './segment-loading';

/** A segment as the last manifest holds it: its files, the versions they were written at, and their checksums. */
interface PersistedSegment {
  bodyVersion: number;
  deletesVersion: number;
  body: string;
  deletes?: string;
  /** Body, delete file, vector and payload files. */
  files: FileChecksum[];
}

/** What a shard's files hold, as opened. */
export interface OpenedShard {
  manifest: ShardManifest;
  segments: Segment[];
  fieldIndexes: Map<string, FieldIndexSchema>;
  clocks: RecoveryPoint;
}

/** What a flush reads of the shard, at the moment it runs (flushes wait for each other). */
export interface FlushSource {
  /** The op number the segments hold every operation up to. */
  lastApplied(): number;
  segments(): readonly Segment[];
  fieldIndexes(): ReadonlyMap<string, FieldIndexSchema>;
  /** Ids of segments being built: their files are on disk before any manifest lists them. */
  buildsInProgress(): string[];
  /** Lets the write-ahead log drop the records up to `opNum`. */
  ackLog(opNum: number): Promise<void>;
  /** The recovery point as of `lastApplied()` (read in the same tick). */
  clocks(): RecoveryPoint;
  /** Changes whenever the recovery point does: an idle flush compares this, not the recovery point's text. */
  clocksVersion(): number;
}

/**
 * What of a shard is on disk: the segment files its manifest lists. A flush writes the segments
 * changed since the last one under new names, then a new manifest, then lets the log drop what
 * the segments now hold; opening reads the segments back from the manifest.
 */
export class ShardManifest {
  /** What the last written manifest holds for each segment. */
  private readonly persisted = new Map<string, PersistedSegment>();
  /** Segments whose body the next flush writes again (see {@link rewriteAfterRunningFlush}), and how often so far. */
  private readonly rewrites = new Set<string>();
  private rewriteCount = 0;
  private persistedOp = 0;
  /** The recovery point the last manifest holds, as written: a merged one is worth a manifest of its own. */
  private persistedClocks = '{}';
  /** The recovery point's text at a version of it, kept so that an idle flush does not write it out again. */
  private clocksSeen: { version: number; text: string } | undefined;
  /** The manifest on disk lacks checksums (written before them) or is damaged: the next flush writes one. */
  private upgradePending = false;
  private readonly flushLock = new KeyedMutex();

  private constructor(private readonly dir: string) {}

  /**
   * Reads the manifest of the shard in `dir` and loads the segments it lists, in its order, with their delete
   * files; segment files it does not list are removed. A new shard has neither. Every file is checked against the
   * checksum the manifest recorded for it before it is used (not per search): a mismatch, a size that differs or a
   * missing file throws {@link DamagedFileError} naming the file, and nothing is removed then. Files written before
   * checksums are taken as they are, and the next flush records their checksums.
   */
  static async open(dir: string, spaces: Map<string, VectorSpace>): Promise<OpenedShard> {
    const shardManifest = new ShardManifest(dir);
    const segmentsDir = shardManifest.segmentsDir;
    const segments: Segment[] = [];
    const fieldIndexes = new Map<string, FieldIndexSchema>();
    let clocks: RecoveryPoint = {};
    await durableFs.mkdir(segmentsDir, { recursive: true, mode: 0o700 });
    await removeStaleTemporaryFiles(dir);
    await removeStaleTemporaryFiles(segmentsDir);
    const read = await readManifest(dir);
    if (read !== undefined) {
      const { manifest, sealed } = read;
      shardManifest.persistedOp = manifest.persistedOpNum;
      shardManifest.upgradePending = !sealed;
      clocks = manifest.clocks ?? {};
      shardManifest.persistedClocks = stringifyJson(clocks);
      for (const entry of manifest.fieldIndexes)
        fieldIndexes.set(entry.field, { type: entry.type, params: entry.params });
      try {
        for (const entry of manifest.segments) {
          const { segment, files, upgraded } = await loadListedSegment(segmentsDir, entry, spaces);
          segments.push(segment);
          shardManifest.upgradePending ||= upgraded;
          // Not counted as persisted: the next flush writes it again without the deleted name's vectors.
          if (segment.holdsUnconfiguredVectors) continue;
          shardManifest.persisted.set(segment.id, {
            bodyVersion: entry.bodyVersion,
            deletesVersion: segment.version,
            body: entry.body,
            deletes: entry.deletes,
            files,
          });
        }
      } catch (error) {
        for (const segment of segments) segment.dispose();
        throw error;
      }
      await shardManifest.removeUnlisted(manifest, []);
    }
    return { manifest: shardManifest, segments, fieldIndexes, clocks };
  }

  /**
   * The shard in `dir` opened with no segments, after {@link open} found `damage`, to be rebuilt by replaying its
   * whole write-ahead log: possible when the log still starts at op 1 and reaches the op number the segments held
   * (the manifest's, or when the manifest is the damaged file, the highest version in a segment file's name). The
   * field indexes and recovery point come from the manifest when it is readable (replay repeats what changed them
   * since). The damaged files go with the first flush, which writes a new manifest. Otherwise throws `damage`,
   * saying why the log cannot rebuild the shard.
   */
  static async openForRebuild(
    dir: string,
    damage: DamagedFileError,
    log: { readonly firstOpNum: number | undefined; readonly lastOpNum: number | undefined },
  ): Promise<OpenedShard> {
    const shardManifest = new ShardManifest(dir);
    const manifest = await readManifest(dir).then(
      (read) => read?.manifest,
      () => undefined,
    );
    const held = manifest ? manifest.persistedOpNum : await highestFileVersion(shardManifest.segmentsDir);
    if (held > 0 && (log.firstOpNum !== 1 || (log.lastOpNum ?? 0) < held)) {
      const reach =
        log.firstOpNum === undefined ? 'holds no operation' : `holds ops ${log.firstOpNum} to ${log.lastOpNum}`;
      throw damage.withAdvice(
        `the shard cannot be rebuilt from its write-ahead log, which ${reach} while the segments held ops 1 to ${held}; ` +
          'restore the collection from a snapshot (in a cluster, recover this replica from another peer)',
      );
    }
    shardManifest.upgradePending = true;
    const fieldIndexes = new Map<string, FieldIndexSchema>(
      (manifest?.fieldIndexes ?? []).map((entry) => [entry.field, { type: entry.type, params: entry.params }]),
    );
    return { manifest: shardManifest, segments: [], fieldIndexes, clocks: manifest?.clocks ?? {} };
  }

  /** Where segment files live. */
  get segmentsDir(): string {
    return path.join(this.dir, 'segments');
  }

  /** The op number the last manifest's segments hold every operation up to. */
  get persistedOpNum(): number {
    return this.persistedOp;
  }

  /** The files (with their checksums) the last manifest lists for segment `id`; undefined when it lists none. */
  recordedFiles(id: string): readonly FileChecksum[] | undefined {
    return this.persisted.get(id)?.files;
  }

  /** The segment leaves the shard: the next manifest does not list it. */
  forget(id: string): void {
    this.persisted.delete(id);
  }

  /**
   * The next flush writes these segments' bodies again. Marked under the flush lock: a flush under
   * way snapshotted them before the change and records them as persisted when it ends.
   */
  rewriteAfterRunningFlush(ids: readonly string[]): void {
    void this.flushLock.run('flush', async () =>
      ids.forEach((id) => {
        // Its body is written again under a fresh name: the listed file is never overwritten in place (a crash
        // between the body's rename and the manifest's would leave the listed name holding other bytes).
        if (this.persisted.delete(id)) this.rewrites.add(id);
      }),
    );
  }

  /**
   * Persists every segment changed since the last flush, then the manifest, then lets the log drop
   * what the segments now hold. Snapshots are taken synchronously, so they agree on one op number.
   */
  flush(shard: FlushSource): Promise<void> {
    return this.flushLock.run('flush', () => this.flushLocked(shard));
  }

  /**
   * A point-in-time copy of the shard's files in `intoDir` (see shard-checkpoint.ts): a flush, then,
   * under the same lock, links to exactly the files the new manifest lists. Writes go on meanwhile;
   * the copy holds every operation up to the manifest's op number.
   */
  checkpoint(shard: FlushSource, intoDir: string): Promise<void> {
    return this.flushLock.run('flush', async () => {
      await this.flushLocked(shard);
      await linkManifestFiles(this.dir, intoDir);
    });
  }

  private async flushLocked(shard: FlushSource): Promise<void> {
    const opNum = shard.lastApplied();
    const segments = shard.segments();
    const clocksVersion = shard.clocksVersion();
    if (this.clocksSeen?.version !== clocksVersion)
      this.clocksSeen = { version: clocksVersion, text: stringifyJson(shard.clocks()) };
    const clocksText = this.clocksSeen.text;
    if (
      opNum === this.persistedOp &&
      clocksText === this.persistedClocks &&
      !this.upgradePending &&
      segments.every((s) => this.persisted.has(s.id))
    )
      return;
    // New files get new names (segment id + version); nothing the current manifest lists is overwritten.
    const writes: Array<{ file: string; data: Uint8Array }> = [];
    const next = new Map<string, PersistedSegment>();
    for (const segment of segments) {
      const current = this.persisted.get(segment.id);
      if (current === undefined || (segment.appendable && segment.version > current.bodyVersion)) {
        const body = this.rewrites.has(segment.id)
          ? bodyFileName(segment, `w${++this.rewriteCount}`)
          : bodyFileName(segment);
        const data = segment.save();
        writes.push({ file: body, data });
        // A built segment's vector and payload files were checksummed as the optimizer wrote them.
        const files = [checksumOf(body, data), ...segment.sideFiles];
        next.set(segment.id, { bodyVersion: segment.version, deletesVersion: segment.version, body, files });
      } else if (segment.version > current.deletesVersion) {
        // An immutable segment only changes by deletes: persist those, not the whole body.
        const deletes = deletesFileName(segment);
        const data = encodeSegmentDeletes(segment);
        writes.push({ file: deletes, data });
        const files = [...current.files.filter((f) => f.file !== current.deletes), checksumOf(deletes, data)];
        next.set(segment.id, { ...current, deletesVersion: segment.version, deletes, files });
      } else {
        next.set(segment.id, current);
      }
    }
    const manifest: Manifest = {
      version: 1,
      persistedOpNum: opNum,
      segments: segments.map((s) => {
        const { bodyVersion, body, deletes, files } = next.get(s.id)!;
        return { id: s.id, bodyVersion, body, ...(deletes ? { deletes } : {}), files };
      }),
      fieldIndexes: [...shard.fieldIndexes()].map(([field, schema]) => ({ field, ...schema })),
      ...(clocksText !== '{}' ? { clocks: shard.clocks() } : {}),
    };
    for (const write of writes) await writeFileAtomic(path.join(this.segmentsDir, write.file), write.data);
    await writeFileAtomic(path.join(this.dir, MANIFEST_FILE), manifestText(manifest));
    this.upgradePending = false;
    // A segment swapped out while this flush wrote is no longer ours to track.
    const present = new Set(shard.segments().map((s) => s.id));
    for (const [id, entry] of next) if (present.has(id)) this.persisted.set(id, entry);
    for (const id of next.keys()) this.rewrites.delete(id);
    this.persistedOp = opNum;
    this.persistedClocks = clocksText;
    await shard.ackLog(opNum);
    // Only what this manifest lists survives; a concurrent swap cannot make it drop a listed file.
    await this.removeUnlisted(manifest, [...shard.segments().map((s) => s.id), ...shard.buildsInProgress()]);
  }

  /** Removes segment files `manifest` does not list, but not the vector and payload files of `alsoKeep` segments. */
  private async removeUnlisted(manifest: Manifest, alsoKeep: readonly string[]): Promise<void> {
    const keep = new Set(manifest.segments.flatMap((s) => (s.deletes ? [s.body, s.deletes] : [s.body])));
    const keepIds = new Set([...manifest.segments.map((s) => s.id), ...alsoKeep]);
    await removeFilesNotKept(this.segmentsDir, keep, keepIds);
  }
}

/** The highest op number in the name of a body or delete file in `segmentsDir` (`<id>.<version>.seg|del`), or 0. */
async function highestFileVersion(segmentsDir: string): Promise<number> {
  const names = await fs.readdir(segmentsDir).catch(() => [] as string[]);
  let highest = 0;
  for (const name of names) {
    const match = /\.(\d+)\.(?:seg|del)$/.exec(name);
    if (match) highest = Math.max(highest, Number(match[1]));
  }
  return highest;
}

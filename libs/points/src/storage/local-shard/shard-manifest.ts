import { PayloadIndexParams, PayloadSchemaType } from '@vectorstore/collections';
import { integersToNumbers, KeyedMutex, parseJson, stringifyJson } from '@vectorstore/common';
import { readFileIfExists, removeStaleTemporaryFiles, writeFileAtomic } from '@vectorstore/persistence';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Segment } from '../segment';
import { VectorSpace } from '../vector-space';
import { FieldIndexSchema } from './field-index-schema';
import type { RecoveryPoint } from './shard-clocks';
import { linkManifestFiles } from './shard-checkpoint';
import { applySegmentDeletes, encodeSegmentDeletes } from './segment-deletes';
import { bodyFileName, deletesFileName, removeFilesNotKept } from './segment-files';

/** A segment as the last manifest holds it: its files and the versions they were written at. */
interface PersistedSegment {
  bodyVersion: number;
  deletesVersion: number;
  body: string;
  deletes?: string;
}

/** `manifest.json` of a shard. */
interface Manifest {
  version: 1;
  persistedOpNum: number;
  /** Exact files of each segment: bodies and delete files are never overwritten, so a crash mid-flush leaves the last manifest's files intact. */
  segments: Array<{ id: string; bodyVersion: number; body: string; deletes?: string }>;
  fieldIndexes: Array<{ field: string; type: PayloadSchemaType; params?: PayloadIndexParams }>;
  /**
   * The routed writes the segments hold, by origin (shard-clocks.ts), as of `persistedOpNum`; the log's tagged
   * records past it add the rest at open. Absent in manifests written before clocks (an empty recovery point).
   */
  clocks?: RecoveryPoint;
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
}

/**
 * What of a shard is on disk: the segment files its manifest lists. A flush writes the segments
 * changed since the last one under new names, then a new manifest, then lets the log drop what
 * the segments now hold; opening reads the segments back from the manifest.
 */
export class ShardManifest {
  /** What the last written manifest holds for each segment. */
  private readonly persisted = new Map<string, PersistedSegment>();
  private persistedOp = 0;
  /** The recovery point the last manifest holds, as written: a merged one is worth a manifest of its own. */
  private persistedClocks = '{}';
  private readonly flushLock = new KeyedMutex();

  private constructor(private readonly dir: string) {}

  /**
   * Reads the manifest of the shard in `dir` and loads the segments it lists, in its order, with
   * their delete files; segment files it does not list are removed. A new shard has neither.
   */
  static async open(
    dir: string,
    spaces: Map<string, VectorSpace>,
  ): Promise<{
    manifest: ShardManifest;
    segments: Segment[];
    fieldIndexes: Map<string, FieldIndexSchema>;
    clocks: RecoveryPoint;
  }> {
    const shardManifest = new ShardManifest(dir);
    const segmentsDir = shardManifest.segmentsDir;
    const segments: Segment[] = [];
    const fieldIndexes = new Map<string, FieldIndexSchema>();
    let clocks: RecoveryPoint = {};
    await fs.mkdir(segmentsDir, { recursive: true, mode: 0o700 });
    await removeStaleTemporaryFiles(dir);
    await removeStaleTemporaryFiles(segmentsDir);
    const manifestText = await readFileIfExists(path.join(dir, 'manifest.json'));
    if (manifestText !== undefined) {
      const manifest = integersToNumbers(parseJson(manifestText)) as Manifest;
      shardManifest.persistedOp = manifest.persistedOpNum;
      clocks = manifest.clocks ?? {};
      shardManifest.persistedClocks = stringifyJson(clocks);
      for (const entry of manifest.fieldIndexes)
        fieldIndexes.set(entry.field, { type: entry.type, params: entry.params });
      for (const entry of manifest.segments) {
        const body = await fs.readFile(path.join(segmentsDir, entry.body));
        const segment = Segment.load(body, spaces, segmentsDir);
        if (entry.deletes) applySegmentDeletes(segment, await fs.readFile(path.join(segmentsDir, entry.deletes)));
        shardManifest.persisted.set(segment.id, {
          bodyVersion: entry.bodyVersion,
          deletesVersion: segment.version,
          body: entry.body,
          deletes: entry.deletes,
        });
        segments.push(segment);
      }
      await shardManifest.removeUnlisted(manifest, []);
    }
    return { manifest: shardManifest, segments, fieldIndexes, clocks };
  }

  /** Where segment files live. */
  get segmentsDir(): string {
    return path.join(this.dir, 'segments');
  }

  /** The op number the last manifest's segments hold every operation up to. */
  get persistedOpNum(): number {
    return this.persistedOp;
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
    void this.flushLock.run('flush', async () => ids.forEach((id) => this.persisted.delete(id)));
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
    const clocks = shard.clocks();
    const segments = shard.segments();
    const clocksText = stringifyJson(clocks);
    if (
      opNum === this.persistedOp &&
      clocksText === this.persistedClocks &&
      segments.every((s) => this.persisted.has(s.id))
    )
      return;
    // New files get new names (segment id + version); nothing the current manifest lists is overwritten.
    const writes: Array<{ file: string; data: Uint8Array }> = [];
    const next = new Map<string, PersistedSegment>();
    for (const segment of segments) {
      const current = this.persisted.get(segment.id);
      if (current === undefined || (segment.appendable && segment.version > current.bodyVersion)) {
        const body = bodyFileName(segment);
        writes.push({ file: body, data: segment.save() });
        next.set(segment.id, { bodyVersion: segment.version, deletesVersion: segment.version, body });
      } else if (segment.version > current.deletesVersion) {
        // An immutable segment only changes by deletes: persist those, not the whole body.
        const deletes = deletesFileName(segment);
        writes.push({ file: deletes, data: encodeSegmentDeletes(segment) });
        next.set(segment.id, { ...current, deletesVersion: segment.version, deletes });
      } else {
        next.set(segment.id, current);
      }
    }
    const manifest: Manifest = {
      version: 1,
      persistedOpNum: opNum,
      segments: segments.map((s) => {
        const { bodyVersion, body, deletes } = next.get(s.id)!;
        return { id: s.id, bodyVersion, body, ...(deletes ? { deletes } : {}) };
      }),
      fieldIndexes: [...shard.fieldIndexes()].map(([field, schema]) => ({ field, ...schema })),
      ...(Object.keys(clocks).length > 0 ? { clocks } : {}),
    };
    for (const write of writes) await writeFileAtomic(path.join(this.segmentsDir, write.file), write.data);
    await writeFileAtomic(path.join(this.dir, 'manifest.json'), stringifyJson(manifest, 2));
    // A segment swapped out while this flush wrote is no longer ours to track.
    const present = new Set(shard.segments().map((s) => s.id));
    for (const [id, entry] of next) if (present.has(id)) this.persisted.set(id, entry);
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

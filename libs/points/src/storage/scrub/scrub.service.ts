import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit, Optional } from '@nestjs/common';
import { PointsStorage } from '../points-storage';
import { ReadPacer, scrubShard } from './shard-scrub';

export const SCRUB_SETTINGS = Symbol('SCRUB_SETTINGS');

/** The background scrub's pace (VECTORSTORE_SCRUB_INTERVAL, VECTORSTORE_SCRUB_MB_PER_SEC). */
export interface ScrubSettings {
  /** From the end of one pass to the start of the next (and from start to the first); 0 turns the scrub off. */
  intervalMs: number;
  /** The most a pass reads per second (0: as fast as the disk gives). */
  bytesPerSecond: number;
}

/** What one pass did. */
export interface ScrubPass {
  startedAt: number;
  ms: number;
  shards: number;
  files: number;
  bytes: number;
  /** Each damaged file found, and what became of its shard. */
  damaged: Array<{ collection: string; shardId: number; message: string; outcome: string }>;
}

/**
 * The background scrub (issue 28, item 3): every file a shard's manifest lists is read again now and then and
 * compared with the size and CRC-32 recorded when it was written, so damage that happens while the server runs is
 * found before the next start trips on it (opening verifies every file too; searches never pay for a checksum). A
 * damaged file has its shard reopened as a start would: rebuilt from its log, set aside to be copied again from
 * another peer (cluster mode), or its collection refused, naming the file. Reads are paced so a pass does not
 * compete with queries for the disk.
 */
@Injectable()
export class ScrubService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ScrubService.name);
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<ScrubPass> | undefined;
  private closing = false;
  /** The last pass that ended. */
  last: ScrubPass | undefined;

  constructor(
    private readonly storage: PointsStorage,
    @Optional() @Inject(SCRUB_SETTINGS) private readonly settings?: ScrubSettings,
  ) {}

  onModuleInit(): void {
    this.schedule();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closing = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** One pass over every open shard now (a pass under way is joined); public for tests and operators. */
  runPass(): Promise<ScrubPass> {
    this.running ??= this.pass().finally(() => (this.running = undefined));
    return this.running;
  }

  private schedule(): void {
    const interval = this.settings?.intervalMs ?? 0;
    if (interval <= 0 || this.closing) return;
    this.timer = setTimeout(() => {
      void this.runPass()
        .catch((error: unknown) => this.logger.error({ err: error }, 'the scrub pass failed'))
        .finally(() => this.schedule());
    }, interval);
    this.timer.unref();
  }

  private async pass(): Promise<ScrubPass> {
    const pass: ScrubPass = { startedAt: Date.now(), ms: 0, shards: 0, files: 0, bytes: 0, damaged: [] };
    const pacer = new ReadPacer(this.settings?.bytesPerSecond ?? 0);
    const stopped = () => this.closing;
    for (const storage of this.storage.openStorages()) {
      for (const [shardId, handle] of storage.shards) {
        if (stopped()) break;
        if (handle.shard.isClosed) continue;
        pass.shards++;
        let result: Awaited<ReturnType<typeof scrubShard>>;
        try {
          result = await scrubShard(storage.shardDir(shardId), pacer, stopped);
        } catch (error) {
          // Not damage (a permission, too many open files …): this shard is skipped this time, the others go on.
          this.logger.warn(
            `scrub: shard ${shardId} of ${storage.record.name} could not be read: ${error instanceof Error ? error.message : String(error)}`,
          );
          continue;
        }
        pass.files += result.files;
        pass.bytes += result.bytes;
        if (!result.damage) continue;
        const outcome = await storage
          .reopenDamagedShard(shardId)
          .catch((error: unknown) => `reopening failed: ${error instanceof Error ? error.message : String(error)}`);
        const collection = storage.record.name;
        pass.damaged.push({ collection, shardId, message: result.damage.message, outcome });
        this.logger.error(
          `scrub: shard ${shardId} of ${collection}: ${result.damage.message}; ${describeOutcome(outcome)}`,
        );
      }
    }
    pass.ms = Date.now() - pass.startedAt;
    this.last = pass;
    this.logger.log(
      `scrub: ${pass.files} files of ${pass.shards} shards (${(pass.bytes / 2 ** 20).toFixed(1)} MiB) checked in ${pass.ms} ms, ${pass.damaged.length} damaged`,
    );
    return pass;
  }
}

function describeOutcome(outcome: string): string {
  switch (outcome) {
    case 'rewritten':
      return 'its segments were written again from memory, where they were intact';
    case 'deferred':
      return 'a transfer reads the shard now: it is reopened at the next pass';
    case 'reopened':
      return 'the shard was opened again (rebuilt from its write-ahead log)';
    case 'set aside':
      return 'the replica is set aside to be copied again from another peer';
    case 'refused':
      return 'the collection is refused until it is restored from a snapshot';
    case 'not open':
      return 'the shard had closed meanwhile';
    default:
      return outcome;
  }
}

/** The write-ahead log as a shard uses it (implemented by `WriteAheadLog` in ../wal). */
export interface ShardLog {
  /** Resolves with the record's op number once it is durable. */
  append(data: Uint8Array): Promise<number>;
  readFrom(from: number): AsyncIterable<{ opNum: number; data: Uint8Array }>;
  readonly lastOpNum: number | undefined;
  /** The first op number the log still holds (older ones were dropped after a flush). */
  readonly firstOpNum: number | undefined;
  /** The file holding op `opNum` (for error messages), if the log still holds it. */
  fileOf(opNum: number): string | undefined;
  /** Ops up to `opNum` are durable elsewhere: the next record is numbered past it, even if the log lost its tail. */
  continueAfter(opNum: number): Promise<void>;
  /** Records up to `opNum` are durable elsewhere and may be dropped. */
  ack(opNum: number): Promise<void>;
  close(): Promise<void>;
}

export interface ShardLogOptions {
  dir: string;
  segmentCapacityBytes: number;
  segmentsAhead: number;
  retainClosed: number;
}

export type OpenShardLog = (options: ShardLogOptions) => Promise<ShardLog>;

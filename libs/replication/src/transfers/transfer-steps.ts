import type { ClockTag, RecoveryPoint, UpdateOperation } from '@vectorstore/points';

/**
 * What a transfer's source asks its target to do, in order (the `TransferApply` call carries numbered batches of
 * these). The target applies them to its replica of the transfer's target shard exactly in the order sent, which is
 * the order the source applied its writes in: that is what makes the copy converge.
 */
export type TransferStep =
  /** Empty the replica (a copy starts from nothing, whatever a Dead replica held). */
  | { kind: 'reset' }
  /**
   * A write to apply: one the source applied (forwarded, or from its log for a WAL delta, with its clock tag: the
   * target applies a tagged write once), or a batch of whole points copied from it (no tag).
   */
  | { kind: 'operation'; operation: UpdateOperation; tag?: ClockTag }
  /** Sent after the last copied batch: the source's recovery point when the copy started, which the copy now holds. */
  | { kind: 'clocks'; point: RecoveryPoint }
  /** A piece of a snapshot file of the source's shard (Snapshot method), `path` relative to the snapshot tree. */
  | { kind: 'file'; path: string; offset: number; data: Uint8Array }
  /** Make the replica what the received snapshot tree holds (then forwarded writes follow). */
  | { kind: 'restore' };

/** The encoded size of a step, roughly: what the sender batches by. */
export function stepBytes(step: TransferStep): number {
  if (step.kind === 'file') return step.data.byteLength + 64;
  if (step.kind !== 'operation') return 16;
  const op = step.operation;
  if ('upsert' in op) {
    let bytes = 64;
    for (const point of op.upsert.points) {
      bytes += 64;
      for (const vector of Object.values(point.vectors)) {
        if (vector.kind === 'dense') bytes += vector.values.byteLength;
        else if (vector.kind === 'sparse') bytes += vector.values.byteLength * 2;
        else for (const row of vector.vectors) bytes += row.byteLength;
      }
      bytes += 256; // payloads are not measured; a fair average keeps batches bounded
    }
    return bytes;
  }
  return 256;
}

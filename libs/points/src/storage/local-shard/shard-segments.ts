import { SparseCorpus } from '@vectorstore/engine';
import { Segment } from '../segment';
import { SparseSegmentVectors } from '../vectors/sparse-vectors';

/**
 * The segments of a shard: the active (appendable) one that takes writes, listed first, and the
 * others. Every segment here scores sparse vectors with the IDF statistics of all of them.
 */
export class ShardSegments {
  private list: Segment[] = [];
  private activeSegment: Segment;

  /**
   * `loaded`: the segments the manifest lists, in its order; the first appendable one becomes the
   * active segment, or a new one does. `newAppendable` makes an empty appendable segment.
   */
  constructor(
    loaded: readonly Segment[],
    private readonly newAppendable: () => Segment,
  ) {
    for (const segment of loaded) this.list.push(this.adopt(segment));
    this.activeSegment = this.list.find((s) => s.appendable) ?? this.addAppendable();
    this.list = [this.activeSegment, ...this.list.filter((s) => s !== this.activeSegment)];
  }

  /** Every segment, the active one first. */
  get all(): readonly Segment[] {
    return this.list;
  }

  get active(): Segment {
    return this.activeSegment;
  }

  /** Seals the active segment (for the optimizer) and starts a fresh one for writes; returns the sealed one. */
  roll(): Segment {
    const sealed = this.activeSegment;
    this.activeSegment = this.addAppendable();
    this.list = [this.activeSegment, ...this.list.filter((s) => s !== this.activeSegment)];
    return sealed;
  }

  /**
   * Moves the active segment's live points into a new active segment (which has a store for every
   * current vector space); returns the previous one, no longer listed, for the caller to dispose.
   */
  renewActive(): Segment {
    const previous = this.activeSegment;
    const next = this.addAppendable();
    for (const point of previous.livePoints()) {
      const slot = next.upsert(point.version, point.id, point.vectors, point.payload);
      // Points keep their visibility (prevent_unoptimized) though the copy packs their slots.
      const before = previous.slotOf(point.id);
      if (before !== undefined && previous.isVisible(before)) next.keepVisible(slot);
      else next.keepHidden(slot);
    }
    next.raiseVersion(previous.version);
    this.activeSegment = next;
    this.list = [next, ...this.list.filter((s) => s !== next && s !== previous)];
    return previous;
  }

  /** Lists `replacement` (an optimized segment, if any) instead of `sources`. */
  replace(sources: readonly Segment[], replacement: Segment | undefined): void {
    this.list = this.list.filter((s) => !sources.includes(s));
    if (replacement) this.list.push(this.adopt(replacement));
  }

  private addAppendable(): Segment {
    const segment = this.newAppendable();
    this.list.push(this.adopt(segment));
    return segment;
  }

  /** Points a segment's sparse spaces at the shard's IDF statistics (Qdrant computes IDF per shard). */
  private adopt(segment: Segment): Segment {
    for (const name of segment.vectorNames()) {
      const store = segment.vectorStore(name);
      if (store instanceof SparseSegmentVectors) store.useCorpus(() => this.sparseCorpus(name));
    }
    return segment;
  }

  private sparseCorpus(name: string): SparseCorpus {
    const stores: SparseSegmentVectors[] = [];
    for (const segment of this.list) {
      const store = segment.vectorStore(name);
      if (store instanceof SparseSegmentVectors) stores.push(store);
    }
    return {
      documents: stores.reduce((sum, store) => sum + store.count, 0),
      frequency: (dim) => stores.reduce((sum, store) => sum + store.documentFrequency(dim), 0),
    };
  }
}

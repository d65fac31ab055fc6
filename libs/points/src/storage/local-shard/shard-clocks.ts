// Which routed writes a replica holds, by origin (cluster mode; Qdrant's clock map, design §3.2): every write a
// coordinator routes to a shard carries a tag, the coordinator's peer and process (incarnation) and a number that
// counts that process's writes to that shard. A replica records the numbers it applied per origin as "all up to
// `upTo`" plus ranges above it (`above`; concurrent writes arrive out of order, and a write that reached no replica
// leaves a gap for good, so ranges keep an entry as small as its gaps are few). That is its recovery point: another
// replica can send exactly what it lacks (WAL delta), and a write that comes again is applied once.

/** Where a routed write comes from and which of its origin's writes to the shard it is. */
export interface ClockTag {
  /** The coordinator's peer id. */
  peer: string;
  /** The coordinator's process (random per start): numbers start again at 1 with each. */
  incarnation: string;
  /** 1, 2, 3, … per origin and shard. */
  seq: number;
}

/** An inclusive range of numbers, `[from, to]`. */
export type SeqRange = [number, number];

/** The numbers applied from one origin: every one up to `upTo`, and `above` (sorted disjoint ranges, all above upTo + 1). */
export interface ClockEntry {
  upTo: number;
  above: SeqRange[];
}

/** A replica's recovery point: its clock entries by origin (`peer/incarnation`). */
export type RecoveryPoint = Record<string, ClockEntry>;

/**
 * A marker origin a copy's target holds from its reset until the copy's last batch (see transfer-receiver.ts): its
 * points are then newer than its recovery point says, so no WAL delta may be replayed over them.
 */
export const COPY_ORIGIN = '-/copy';

/**
 * A marker origin in the recovery point a replica set aside as damaged answers with (its files hold nothing to
 * trust): no WAL delta can repair it, it is copied whole.
 */
export const DAMAGED_ORIGIN = '-/damaged';

/** The recovery point of a replica set aside as damaged. */
export function damagedRecoveryPoint(): RecoveryPoint {
  return { [DAMAGED_ORIGIN]: { upTo: 1, above: [] } };
}

/** The most writes a WAL delta sends: past that, copying the shard is the cheaper way. */
export const MAX_DELTA_WRITES = 1_000_000;

export function originOf(tag: ClockTag): string {
  return `${tag.peer}/${tag.incarnation}`;
}

/** The clock map of one replica: what it has applied by origin. */
export class ShardClocks {
  private readonly entries = new Map<string, ClockEntry>();
  private changes = 0;

  /** Rises with every change (a flush writes the recovery point out only when it moved). */
  get version(): number {
    return this.changes;
  }

  constructor(point: RecoveryPoint = {}) {
    for (const [origin, entry] of Object.entries(point)) this.entries.set(origin, readEntry(entry));
  }

  /** Whether the write `tag` names has been applied already. */
  has(tag: ClockTag): boolean {
    return holds(this.entries.get(originOf(tag)), tag.seq);
  }

  /** Records `tag` as applied. */
  add(tag: ClockTag): void {
    const origin = originOf(tag);
    const entry = this.entries.get(origin);
    if (holds(entry, tag.seq)) return;
    this.entries.set(origin, toEntry(union(rangesOf(entry), [[tag.seq, tag.seq]])));
    this.changes++;
  }

  /** Takes in everything `point` holds (a copy's source state): per origin, the union of both. */
  merge(point: RecoveryPoint): void {
    for (const [origin, theirs] of Object.entries(point))
      this.entries.set(origin, toEntry(union(rangesOf(this.entries.get(origin)), rangesOf(readEntry(theirs)))));
    this.changes++;
  }

  /** Drops what `origin` holds (the unfinished-copy marker once the copy is whole). */
  forget(origin: string): void {
    if (this.entries.delete(origin)) this.changes++;
  }

  /** A copy of the recovery point, as it is now. */
  snapshot(): RecoveryPoint {
    const point: RecoveryPoint = {};
    for (const [origin, entry] of this.entries)
      point[origin] = { upTo: entry.upTo, above: entry.above.map(([from, to]): SeqRange => [from, to]) };
    return point;
  }

  clear(): void {
    this.entries.clear();
    this.changes++;
  }
}

/**
 * An entry as stored or sent: ranges, or single numbers as manifests written before ranges hold them. Anything
 * else is refused (a recovery point decides what is sent and skipped).
 */
function readEntry(entry: ClockEntry | { upTo: number; above: Array<number | SeqRange> }): ClockEntry {
  const ranges: SeqRange[] = [];
  if (entry.upTo > 0) ranges.push([1, entry.upTo]);
  for (const item of entry.above) ranges.push(typeof item === 'number' ? [item, item] : [item[0], item[1]]);
  for (const [from, to] of ranges)
    if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || from < 1 || to < from)
      throw new Error(`bad clock entry range [${from}, ${to}]`);
  return toEntry(union(ranges, []));
}

function readPoint(point: RecoveryPoint): RecoveryPoint {
  const read: RecoveryPoint = {};
  for (const [origin, entry] of Object.entries(point)) read[origin] = readEntry(entry);
  return read;
}

function rangesOf(entry: ClockEntry | undefined): SeqRange[] {
  if (!entry) return [];
  return entry.upTo > 0 ? [[1, entry.upTo], ...entry.above] : entry.above;
}

/** Ranges starting at 1 become the prefix. */
function toEntry(ranges: SeqRange[]): ClockEntry {
  if (ranges.length > 0 && ranges[0][0] === 1) return { upTo: ranges[0][1], above: ranges.slice(1) };
  return { upTo: 0, above: ranges };
}

/** The union of two range lists, sorted, with touching ranges joined. */
function union(a: readonly SeqRange[], b: readonly SeqRange[]): SeqRange[] {
  const all = [...a, ...b].sort((x, y) => x[0] - y[0]);
  const out: SeqRange[] = [];
  for (const [from, to] of all) {
    const last = out[out.length - 1];
    if (last && from <= last[1] + 1) last[1] = Math.max(last[1], to);
    else out.push([from, to]);
  }
  return out;
}

/** The numbers of `a` not in `b`, as ranges (both sorted and disjoint). */
function difference(a: readonly SeqRange[], b: readonly SeqRange[]): SeqRange[] {
  const out: SeqRange[] = [];
  let j = 0;
  for (const [start, end] of a) {
    let from = start;
    while (j < b.length && b[j][1] < from) j++;
    let k = j;
    while (from <= end && k < b.length && b[k][0] <= end) {
      if (b[k][0] > from) out.push([from, b[k][0] - 1]);
      from = Math.max(from, b[k][1] + 1);
      k++;
    }
    if (from <= end) out.push([from, end]);
  }
  return out;
}

function holds(entry: ClockEntry | undefined, seq: number): boolean {
  if (!entry) return false;
  return seq <= entry.upTo || inRanges(entry.above, seq);
}

function inRanges(ranges: readonly SeqRange[], seq: number): boolean {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (seq < ranges[mid][0]) hi = mid - 1;
    else if (seq > ranges[mid][1]) lo = mid + 1;
    else return true;
  }
  return false;
}

function count(ranges: readonly SeqRange[]): number {
  return ranges.reduce((sum, [from, to]) => sum + to - from + 1, 0);
}

/** A record of the source's write-ahead log, as a WAL delta looks at it. */
export interface TaggedRecord<T> {
  tag: ClockTag | undefined;
  item: T;
}

/**
 * What a WAL delta from `source` to `target` must send, by origin, and how many writes that is; or why no delta can
 * do it, judged from the recovery points alone (before any log is read).
 */
export function deltaPlan(
  source: RecoveryPoint,
  target: RecoveryPoint,
): { needed: Map<string, SeqRange[]>; total: number } | { refused: string } {
  if (DAMAGED_ORIGIN in target) return { refused: 'the target replica is damaged and is copied whole' };
  if (COPY_ORIGIN in target) return { refused: 'the target holds an unfinished copy' };
  if (COPY_ORIGIN in source) return { refused: 'the source holds an unfinished copy' };
  const has = readPoint(source);
  const lacks = readPoint(target);
  for (const origin of Object.keys(lacks)) {
    const ahead = difference(rangesOf(lacks[origin]), rangesOf(has[origin]));
    if (ahead.length > 0)
      return { refused: `the target holds writes the source does not (${origin}, #${ahead[0][0]})` };
  }
  const needed = new Map<string, SeqRange[]>();
  let total = 0;
  for (const origin of Object.keys(has)) {
    const missing = difference(rangesOf(has[origin]), rangesOf(lacks[origin]));
    if (missing.length === 0) continue;
    needed.set(origin, missing);
    total += count(missing);
  }
  if (total > MAX_DELTA_WRITES)
    return { refused: `the target lacks ${total} writes, more than a delta sends (${MAX_DELTA_WRITES})` };
  return { needed, total };
}

/**
 * What the source must send for the target to hold what it holds: the records of its retained log the target
 * lacks, in log order. Refused (a delta cannot do it, the whole shard must be copied) when the target holds a
 * write the source does not, when it lacks more than {@link MAX_DELTA_WRITES}, when the log no longer has every
 * write the target lacks, or when the log has a write without a tag (a copied batch, or one from before clocks),
 * which no recovery point can account for.
 */
export function walDelta<T>(
  source: RecoveryPoint,
  target: RecoveryPoint,
  records: ReadonlyArray<TaggedRecord<T>>,
): { send: T[] } | { refused: string } {
  const plan = deltaPlan(source, target);
  if ('refused' in plan) return plan;
  const { needed, total } = plan;
  const send: T[] = [];
  const sent = new Set<string>();
  for (const record of records) {
    if (!record.tag) return { refused: 'the source log holds a write without a clock tag' };
    const missing = needed.get(originOf(record.tag));
    const key = `${originOf(record.tag)}#${record.tag.seq}`;
    if (!missing || !inRanges(missing, record.tag.seq) || sent.has(key)) continue;
    sent.add(key);
    send.push(record.item);
  }
  if (sent.size < total) {
    for (const [origin, missing] of needed)
      for (const [from, to] of missing)
        for (let seq = from; seq <= to; seq++)
          if (!sent.has(`${origin}#${seq}`))
            return { refused: `the source log no longer holds write #${seq} of ${origin}` };
  }
  return { send };
}

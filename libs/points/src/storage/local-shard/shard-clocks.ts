// Which routed writes a replica holds, by origin (cluster mode; Qdrant's clock map, design §3.2): every write a
// coordinator routes to a shard carries a tag, the coordinator's peer and process (incarnation) and a number that
// counts that process's writes to that shard. A replica records the numbers it applied per origin as "all up to
// `upTo`" plus the few above it (`above`; concurrent writes can arrive out of order). That is its recovery point:
// another replica can send exactly what it lacks (WAL delta), and a write that comes again is applied once.

/** Where a routed write comes from and which of its origin's writes to the shard it is. */
export interface ClockTag {
  /** The coordinator's peer id. */
  peer: string;
  /** The coordinator's process (random per start): numbers start again at 1 with each. */
  incarnation: string;
  /** 1, 2, 3, … per origin and shard. */
  seq: number;
}

/** The numbers applied from one origin: every one up to `upTo`, and `above` (sorted, all > upTo + 1). */
export interface ClockEntry {
  upTo: number;
  above: number[];
}

/** A replica's recovery point: its clock entries by origin (`peer/incarnation`). */
export type RecoveryPoint = Record<string, ClockEntry>;

export function originOf(tag: ClockTag): string {
  return `${tag.peer}/${tag.incarnation}`;
}

/** The clock map of one replica: what it has applied by origin. */
export class ShardClocks {
  private readonly entries = new Map<string, ClockEntry>();

  constructor(point: RecoveryPoint = {}) {
    for (const [origin, entry] of Object.entries(point))
      this.entries.set(origin, { upTo: entry.upTo, above: [...entry.above] });
  }

  /** Whether the write `tag` names has been applied already. */
  has(tag: ClockTag): boolean {
    return holds(this.entries.get(originOf(tag)), tag.seq);
  }

  /** Records `tag` as applied. */
  add(tag: ClockTag): void {
    const origin = originOf(tag);
    let entry = this.entries.get(origin);
    if (!entry) {
      entry = { upTo: 0, above: [] };
      this.entries.set(origin, entry);
    }
    if (holds(entry, tag.seq)) return;
    if (tag.seq === entry.upTo + 1) {
      entry.upTo = tag.seq;
      while (entry.above.length > 0 && entry.above[0] === entry.upTo + 1) entry.upTo = entry.above.shift()!;
    } else {
      const at = entry.above.findIndex((seq) => seq > tag.seq);
      entry.above.splice(at < 0 ? entry.above.length : at, 0, tag.seq);
    }
  }

  /** Takes in everything `point` holds (a copy's source state): per origin, the union of both. */
  merge(point: RecoveryPoint): void {
    for (const [origin, theirs] of Object.entries(point)) {
      const own = this.entries.get(origin);
      const upTo = Math.max(own?.upTo ?? 0, theirs.upTo);
      const above = [...new Set([...(own?.above ?? []), ...theirs.above])].filter((seq) => seq > upTo);
      above.sort((a, b) => a - b);
      const entry = { upTo, above };
      while (entry.above.length > 0 && entry.above[0] === entry.upTo + 1) entry.upTo = entry.above.shift()!;
      this.entries.set(origin, entry);
    }
  }

  /** A copy of the recovery point, as it is now. */
  snapshot(): RecoveryPoint {
    const point: RecoveryPoint = {};
    for (const [origin, entry] of this.entries) point[origin] = { upTo: entry.upTo, above: [...entry.above] };
    return point;
  }

  clear(): void {
    this.entries.clear();
  }
}

function holds(entry: ClockEntry | undefined, seq: number): boolean {
  return entry !== undefined && (seq <= entry.upTo || entry.above.includes(seq));
}

/** The numbers of one origin a recovery point holds and another lacks (every one, ascending). */
function missingFrom(has: ClockEntry | undefined, lacks: ClockEntry | undefined): number[] {
  if (!has) return [];
  const missing: number[] = [];
  for (let seq = (lacks?.upTo ?? 0) + 1; seq <= has.upTo; seq++) if (!holds(lacks, seq)) missing.push(seq);
  for (const seq of has.above) if (!holds(lacks, seq)) missing.push(seq);
  return missing;
}

/** A record of the source's write-ahead log, as a WAL delta looks at it. */
export interface TaggedRecord<T> {
  tag: ClockTag | undefined;
  item: T;
}

/**
 * What the source must send for the target to hold what it holds: the records of its retained log the target
 * lacks, in log order. Undefined (a delta cannot do it, the whole shard must be copied) when the target holds a
 * write the source does not, when the log no longer has every write the target lacks, or when the log has a
 * write without a tag (a copied batch, or one from before clocks), which no recovery point can account for.
 */
export function walDelta<T>(
  source: RecoveryPoint,
  target: RecoveryPoint,
  records: ReadonlyArray<TaggedRecord<T>>,
): { send: T[] } | { refused: string } {
  for (const origin of Object.keys(target)) {
    const ahead = missingFrom(target[origin], source[origin]);
    if (ahead.length > 0) return { refused: `the target holds writes the source does not (${origin}, #${ahead[0]})` };
  }
  const needed = new Map<string, Set<number>>();
  for (const origin of Object.keys(source)) {
    const missing = missingFrom(source[origin], target[origin]);
    if (missing.length > 0) needed.set(origin, new Set(missing));
  }
  const send: T[] = [];
  for (const record of records) {
    if (!record.tag) return { refused: 'the source log holds a write without a clock tag' };
    const missing = needed.get(originOf(record.tag));
    if (missing?.delete(record.tag.seq)) send.push(record.item);
  }
  for (const [origin, missing] of needed) {
    if (missing.size > 0)
      return { refused: `the source log no longer holds write #${Math.min(...missing)} of ${origin}` };
  }
  return { send };
}

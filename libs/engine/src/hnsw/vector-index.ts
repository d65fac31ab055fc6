// VectorIndex: the public index class (IndexCore plus persistence). save -> bytes -> load. Format: "VSIX" magic, u32 format version, u32 JSON length, JSON metadata
// (config, counters, quantizer header values), then each persistent region as u32 length + bytes.
// Regions are restored by name into a fresh layout, so a rebuilt wasm with another heap base still loads.
// Format 1: every region. Format 2: saved with { vectors: false } (meta.vectors false, an empty VEC region);
// full saves keep writing format 1, so builds that predate format 2 refuse only what they cannot use.
import { EngineInputError } from '../errors';
import { H, PERSISTENT_REGIONS, RegionName } from '../wasm/layout';
import { QuantizerState } from '../quantization/train';
import { IndexConfig } from './index-config';
import { SeededRandom } from './random';
import { ThreadedIndex } from './index-threads';

const MAGIC = 0x58495356; // "VSIX" little-endian
const FORMAT = 1;
const FORMAT_NO_VECTORS = 2;

/** Options of VectorIndex.save. */
export interface SaveOptions {
  /**
   * Include the original vectors (default true). false leaves them out (the caller keeps them elsewhere,
   * e.g. from exportRows); the index loaded from such bytes searches with searchCandidates and scores rows
   * with scoreRows. Requires a quantizer (trained now if the config names one and the index is not empty).
   */
  readonly vectors?: boolean;
}

interface SavedMeta {
  config: IndexConfig;
  count: number;
  upperUsed: number;
  entry: number;
  maxLevel: number;
  deletedCount: number;
  rng: number;
  quantizer?: Omit<QuantizerState, 'params'>;
  /** false: saved without the original vectors (absent in format 1). */
  vectors?: false;
}

/**
 * An HNSW vector index in its own WebAssembly instance (shared memory): add/delete/search/quantize from
 * IndexCore, parallel build and searchAsync from ThreadedIndex, save/load here.
 */
export class VectorIndex extends ThreadedIndex {
  /**
   * Serializes the index (vectors, graph, deletes, quantizer) into bytes; with { vectors: false } without
   * the original vectors (see SaveOptions). An index without vectors can only be saved that way.
   */
  save(options: SaveOptions = {}): Uint8Array {
    const vectors = options.vectors ?? true;
    if (vectors) this.requireVectors('save', '; save it with { vectors: false }');
    if (!vectors && !this.quantizer) {
      if (!this.config.quantization || this.size === 0) {
        throw new EngineInputError(
          'save({ vectors: false }): the index has no trained quantizer to search without its vectors (configure quantization and add vectors first)',
        );
      }
      this.quantize();
    }
    const a = this.arena;
    const count = this.size;
    const meta: SavedMeta = {
      config: this.config,
      count,
      upperUsed: a.get(H.UPPER_USED),
      entry: a.getI32(H.ENTRY),
      maxLevel: a.getI32(H.MAX_LEVEL),
      deletedCount: a.get(H.DELETED_COUNT),
      rng: this.rng.seed,
    };
    if (!vectors) meta.vectors = false;
    if (this.quantizer) {
      const { params: _params, ...rest } = this.quantizer;
      meta.quantizer = rest;
    }
    const used: Record<RegionName, number> = {} as Record<RegionName, number>;
    for (const r of PERSISTENT_REGIONS)
      used[r] = r === 'VEC' && !vectors ? 0 : this.usedBytes(r, count, meta.upperUsed);
    const json = new TextEncoder().encode(JSON.stringify(meta));
    let total = 12 + json.length;
    for (const r of PERSISTENT_REGIONS) total += 4 + used[r];
    const out = new Uint8Array(total);
    const dv = new DataView(out.buffer);
    dv.setUint32(0, MAGIC, true);
    dv.setUint32(4, vectors ? FORMAT : FORMAT_NO_VECTORS, true);
    dv.setUint32(8, json.length, true);
    out.set(json, 12);
    let at = 12 + json.length;
    for (const r of PERSISTENT_REGIONS) {
      dv.setUint32(at, used[r], true);
      out.set(a.copyRegion(r, used[r]), at + 4);
      at += 4 + used[r];
    }
    return out;
  }

  private usedBytes(r: RegionName, count: number, upperUsed: number): number {
    const a = this.arena;
    const per: Partial<Record<RegionName, number>> = {
      VEC: count * a.get(H.VEC_STRIDE),
      NORM: a.size('NORM') > 0 ? count * 4 : 0,
      L0: count * a.get(H.L0_STRIDE),
      LEVEL: count,
      UP_OFF: count * 4,
      DELETED: Math.ceil(count / 8),
      Q_CODE: this.quantizer ? count * this.quantizer.stride : 0,
      Q_AUX: this.quantizer?.aux ? count * 4 : 0,
      UPPER: upperUsed * a.get(H.UP_STRIDE),
      Q_PARAM: this.quantizer ? this.quantizer.params.length : 0,
    };
    return Math.min(per[r] ?? 0, a.size(r));
  }

  /**
   * Rebuilds an index from `save()` bytes; searches give the same results as the saved index. Bytes saved
   * with { vectors: false } give an index with hasVectors false that allocates no memory for vectors.
   */
  static load(bytes: Uint8Array): VectorIndex {
    if (bytes.length < 12) throw new EngineInputError('index bytes: too short');
    const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (dv.getUint32(0, true) !== MAGIC)
      throw new EngineInputError('index bytes: bad magic (not a saved vectorstore index)');
    const format = dv.getUint32(4, true);
    if (format !== FORMAT && format !== FORMAT_NO_VECTORS)
      throw new EngineInputError(`index bytes: unsupported format ${format}`);
    const jsonLen = dv.getUint32(8, true);
    const meta = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + jsonLen))) as SavedMeta;
    const vectors = meta.vectors !== false;
    if (vectors !== (format === FORMAT))
      throw new EngineInputError(`index bytes: format ${format} does not match the metadata`);
    if (!vectors && !meta.quantizer)
      throw new EngineInputError('index bytes: saved without vectors and without a quantizer');
    const index = new VectorIndex({ ...meta.config, initialCapacity: Math.max(16, meta.count) }, { vectors });
    index.restore(meta, bytes, 12 + jsonLen);
    return index;
  }

  private restore(meta: SavedMeta, bytes: Uint8Array, start: number): void {
    const a = this.arena;
    const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const blobs = new Map<RegionName, Uint8Array>();
    let at = start;
    for (const r of PERSISTENT_REGIONS) {
      const len = dv.getUint32(at, true);
      blobs.set(r, bytes.subarray(at + 4, at + 4 + len));
      at += 4 + len;
    }
    this.ensureUpper(meta.upperUsed);
    if (meta.quantizer) this.installQuantizer({ ...meta.quantizer, params: blobs.get('Q_PARAM')!.slice() });
    for (const r of PERSISTENT_REGIONS) {
      const b = blobs.get(r)!;
      if (b.length > 0) a.writeRegion(r, b);
    }
    a.set(H.COUNT, meta.count);
    a.set(H.UPPER_USED, meta.upperUsed);
    a.set(H.ENTRY, meta.entry);
    a.set(H.MAX_LEVEL, meta.maxLevel);
    a.set(H.DELETED_COUNT, meta.deletedCount);
    this.rng = new SeededRandom(meta.rng);
  }
}

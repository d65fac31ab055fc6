// Places the index regions in linear memory. Regions sit in a fixed order; growing any region moves the
// regions behind it up (copying from the last one down, so nothing is overwritten) and zeroes new bytes.
import { H, HEADER_ADDRESSED, HEADER_FIELDS, REGION_ALIGN, REGIONS, RegionName } from './layout';
import { EngineExports } from './exports';
import { MemoryViews } from './memory-views';

export type RegionSizes = Record<RegionName, number>;

const align = (n: number, a: number): number => Math.ceil(n / a) * a;

export function emptySizes(): RegionSizes {
  const s = {} as RegionSizes;
  for (const r of REGIONS) s[r] = 0;
  return s;
}

export class Arena {
  readonly views: MemoryViews;
  readonly headerIndex!: number;
  private readonly base: number;
  private offsets: RegionSizes = emptySizes();
  private sizes: RegionSizes = emptySizes();

  constructor(readonly wasm: EngineExports) {
    this.views = new MemoryViews(wasm.memory);
    this.base = align(wasm.heapBase(), REGION_ALIGN);
    // the header is the first region and never grows, so its address is fixed for the index's life
    this.resize({ HEADER: HEADER_FIELDS * 4 });
    this.headerIndex = this.offsets.HEADER >>> 2;
    wasm.setHeader(this.offsets.HEADER);
  }

  /** Address of the header (given to every instance attached to this memory). */
  get headerPtr(): number {
    return this.offsets.HEADER;
  }

  get(field: number): number {
    return this.views.u32[this.headerIndex + field];
  }
  set(field: number, value: number): void {
    this.views.u32[this.headerIndex + field] = value >>> 0;
  }
  getI32(field: number): number {
    return this.views.i32[this.headerIndex + field];
  }
  getF32(field: number): number {
    return this.views.f32[this.headerIndex + field];
  }
  setF32(field: number, value: number): void {
    this.views.f32[this.headerIndex + field] = value;
  }

  offset(r: RegionName): number {
    return this.offsets[r];
  }
  size(r: RegionName): number {
    return this.sizes[r];
  }
  /** Bytes of linear memory in use by regions. */
  get usedBytes(): number {
    const last = REGIONS[REGIONS.length - 1];
    return this.offsets[last] + this.sizes[last];
  }

  /** Grows regions to at least the given sizes (never shrinks), moving and zero-filling as needed. */
  resize(wanted: Partial<RegionSizes>): void {
    const next = emptySizes();
    let changed = false;
    for (const r of REGIONS) {
      next[r] = align(Math.max(this.sizes[r], wanted[r] ?? 0), REGION_ALIGN);
      if (next[r] !== this.sizes[r]) changed = true;
    }
    if (!changed) return;
    const offs = emptySizes();
    let at = this.base;
    for (const r of REGIONS) {
      offs[r] = at;
      at += next[r];
    }
    this.views.ensure(at);
    const u8 = this.views.u8;
    for (let i = REGIONS.length - 1; i >= 0; i--) {
      const r = REGIONS[i];
      const oldSize = this.sizes[r];
      if (oldSize > 0 && offs[r] !== this.offsets[r])
        u8.copyWithin(offs[r], this.offsets[r], this.offsets[r] + oldSize);
      u8.fill(0, offs[r] + oldSize, offs[r] + next[r]);
    }
    this.offsets = offs;
    this.sizes = next;
    if (this.headerIndex !== undefined) {
      for (const r of HEADER_ADDRESSED) this.set(H[r], offs[r]);
    }
  }

  /** The bytes of one region (a copy). */
  copyRegion(r: RegionName, length = this.sizes[r]): Uint8Array {
    return this.views.u8.slice(this.offsets[r], this.offsets[r] + Math.min(length, this.sizes[r]));
  }

  /** Writes bytes at the start of a region (which must be large enough). */
  writeRegion(r: RegionName, bytes: Uint8Array): void {
    if (bytes.length > this.sizes[r]) throw new Error(`engine: region ${r} too small for ${bytes.length} bytes`);
    this.views.u8.set(bytes, this.offsets[r]);
  }
}

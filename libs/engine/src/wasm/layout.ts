// Mirror of assembly/layout.ts. Change both together and bump ABI_VERSION; the loader refuses a mismatch.

export const ABI_VERSION = 5;
export const HEADER_FIELDS = 64;

export const H = {
  ABI: 0,
  DIM: 1,
  DIM_PAD: 2,
  DTYPE: 3,
  METRIC: 4,
  NORMED: 5,
  M: 6,
  M0: 7,
  EF_CONSTRUCT: 8,
  COUNT: 9,
  CAPACITY: 10,
  ENTRY: 11,
  MAX_LEVEL: 12,
  UPPER_USED: 13,
  UPPER_CAP: 14,
  VEC: 15,
  VEC_STRIDE: 16,
  NORM: 17,
  L0: 18,
  L0_STRIDE: 19,
  LEVEL: 20,
  UP_OFF: 21,
  UPPER: 22,
  UP_STRIDE: 23,
  DELETED: 24,
  ALLOWED: 25,
  VISITED: 26,
  EPOCH: 27,
  QUERY: 28,
  TMP_A: 29,
  TMP_B: 30,
  HEAP_C: 31,
  HEAP_R: 32,
  HEAP_CAP: 33,
  OUT: 34,
  BUF: 35,
  SEL: 36,
  REP: 37,
  Q_KIND: 38,
  Q_CODE: 39,
  Q_STRIDE: 40,
  Q_AUX: 41,
  Q_PARAM: 42,
  Q_QUERY: 43,
  Q_BITS: 44,
  Q_SUB_DIM: 45,
  Q_LO: 46,
  Q_SCALE: 47,
  Q_QUERY_MODE: 48,
  Q_PLANE_LO: 49,
  Q_PLANE_SCALE: 50,
  DELETED_COUNT: 51,
  LOCKS: 52,
  GLOBAL_LOCK: 53,
  NEXT_SLOT: 54,
  END_SLOT: 55,
  DONE: 56,
} as const;

export const DT = { F32: 0, F16: 1, U8: 2 } as const;
export const MT = { DOT: 0, L2: 1, L1: 2 } as const;
export const QK = { NONE: 0, INT8: 1, BINARY: 2, PQ: 3 } as const;
export const TR = { ORIGINAL: 0, INT8: 1, BINARY: 2, PQ: 3 } as const;

/** Regions placed in linear memory, in address order; each has a header field holding its address. */
export const REGIONS = [
  'HEADER',
  'QUERY',
  'TMP_A',
  'TMP_B',
  'HEAP_C',
  'HEAP_R',
  'OUT',
  'BUF',
  'SEL',
  'REP',
  'Q_PARAM',
  'Q_QUERY',
  'VEC',
  'NORM',
  'L0',
  'LEVEL',
  'UP_OFF',
  'DELETED',
  'ALLOWED',
  'VISITED',
  'Q_CODE',
  'Q_AUX',
  'LOCKS',
  'UPPER',
  'THREADS',
  // scratch for rows passed in from outside (scoreRows); last, so growing it never moves another region
  'ROWS',
] as const;
export type RegionName = (typeof REGIONS)[number];
type Unaddressed = 'HEADER' | 'THREADS' | 'ROWS';
/** Regions with an address field in the header (the header, thread scratch and row scratch have none). */
export const HEADER_ADDRESSED: readonly Exclude<RegionName, Unaddressed>[] = REGIONS.filter(
  (r): r is Exclude<RegionName, Unaddressed> => r !== 'HEADER' && r !== 'THREADS' && r !== 'ROWS',
);

/** Regions whose bytes are index state (saved and restored); the rest are per-call scratch. */
export const PERSISTENT_REGIONS: readonly RegionName[] = [
  'Q_PARAM',
  'VEC',
  'NORM',
  'L0',
  'LEVEL',
  'UP_OFF',
  'DELETED',
  'Q_CODE',
  'Q_AUX',
  'UPPER',
];

export const REGION_ALIGN = 64;

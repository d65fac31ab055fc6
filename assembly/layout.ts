// Memory layout shared with libs/engine/src/wasm/layout.ts. Change both together and bump ABI_VERSION.
// All persistent index state lives in one header of u32/f32 fields at an address the engine library picks
// (setHeader); bulk regions are placed by the engine library, which writes their addresses into the header
// before any kernel runs. Memory is shared so worker threads can build and search the same index.

export const ABI_VERSION: i32 = 5;
export const HEADER_FIELDS: i32 = 64;

// header field indexes (byte offset = index * 4)
export const H_ABI = 0;
export const H_DIM = 1;
export const H_DIM_PAD = 2; // dimension rounded up to 16 elements
export const H_DTYPE = 3; // DT_*
export const H_METRIC = 4; // MT_*
export const H_NORMED = 5; // 1 when stored u8 vectors carry an inverse norm (Cosine on uint8)
export const H_M = 6;
export const H_M0 = 7;
export const H_EF_CONSTRUCT = 8;
export const H_COUNT = 9; // slots in use (0..count-1 hold vectors)
export const H_CAPACITY = 10;
export const H_ENTRY = 11; // entryPoint slot, -1 when empty
export const H_MAX_LEVEL = 12; // -1 when empty
export const H_UPPER_USED = 13; // upper-level records handed out
export const H_UPPER_CAP = 14;
export const H_VEC = 15;
export const H_VEC_STRIDE = 16; // bytes per stored vector
export const H_NORM = 17;
export const H_L0 = 18;
export const H_L0_STRIDE = 19; // bytes per level-0 record: (1 + m0) u32
export const H_LEVEL = 20; // u8 per slot
export const H_UP_OFF = 21; // u32 per slot: first upper record index
export const H_UPPER = 22;
export const H_UP_STRIDE = 23; // bytes per upper record: (1 + m) u32
export const H_DELETED = 24; // bitmap
export const H_ALLOWED = 25; // bitmap, filled per query
export const H_VISITED = 26; // u16 epoch per slot
export const H_EPOCH = 27;
export const H_QUERY = 28; // f32[dimPad]
export const H_TMP_A = 29; // f32[dimPad]
export const H_TMP_B = 30; // f32[dimPad]
export const H_HEAP_C = 31; // candidate min-heap, 8 bytes per entry
export const H_HEAP_R = 32; // result max-heap
export const H_HEAP_CAP = 33;
export const H_OUT = 34; // (u32 slot, f32 dist) pairs
export const H_BUF = 35; // heapCap pairs
export const H_SEL = 36; // (m0 + 2) u32
export const H_REP = 37; // (m0 + 2) pairs
export const H_Q_KIND = 38; // QK_*
export const H_Q_CODE = 39;
export const H_Q_STRIDE = 40; // bytes per code
export const H_Q_AUX = 41; // f32 per slot
export const H_Q_PARAM = 42;
export const H_Q_QUERY = 43; // encoded query / PQ distance table
export const H_Q_BITS = 44; // binary: bits per vector; PQ: sub-spaces
export const H_Q_SUB_DIM = 45; // PQ: dims per sub-space
export const H_Q_LO = 46; // f32: int8 offset
export const H_Q_SCALE = 47; // f32: int8 step
export const H_Q_QUERY_MODE = 48; // binary: 0 hamming, 4 or 8 = bit planes of a scalar query
export const H_Q_PLANE_LO = 49; // f32, binary scalar query offset
export const H_Q_PLANE_SCALE = 50; // f32, binary scalar query step
export const H_DELETED_COUNT = 51;
export const H_LOCKS = 52; // u32 spin lock per slot (parallel build)
export const H_GLOBAL_LOCK = 53; // spin lock for entryPoint / maxLevel changes
export const H_NEXT_SLOT = 54; // parallel build: next slot to take (atomic)
export const H_END_SLOT = 55; // parallel build: one past the last slot
export const H_DONE = 56; // parallel build: threads finished (atomic, waited on by the main thread)

export const DT_F32 = 0;
export const DT_F16 = 1;
export const DT_U8 = 2;

// internal metrics: ranking distance, lower is better
export const MT_DOT = 0; // -dot (Cosine after normalization, Dot)
export const MT_L2 = 1; // squared L2
export const MT_L1 = 2;

export const QK_NONE = 0;
export const QK_INT8 = 1;
export const QK_BINARY = 2;
export const QK_PQ = 3;

// traversal: which representation the search loop scores
export const TR_ORIGINAL = 0;
export const TR_INT8 = 1;
export const TR_BINARY = 2;
export const TR_PQ = 3;

export const NO_ENTRY: i32 = -1;

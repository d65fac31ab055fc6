// Trains quantizers on a seeded sample of stored vectors. The result is plain data (header values plus a
// parameter blob for Q_PARAM), so it can be saved and restored as is.
import { MT, QK } from '../wasm/layout';
import { scratchKernels } from '../wasm/kernels';
import { SeededRandom, sampleIndexes } from '../hnsw/random';
import { BinaryEncoding, PQ_SUB_DIM, QuantizationConfig } from './config';

export interface QuantizerState {
  readonly config: QuantizationConfig;
  readonly kind: number; // QK_*
  readonly stride: number; // code bytes per vector
  readonly bits: number; // binary: bits per vector; PQ: sub-spaces
  readonly subDim: number; // PQ
  readonly lo: number; // int8
  readonly scale: number; // int8
  readonly queryMode: number; // binary: 0 Hamming, 4 or 8 bit planes
  readonly params: Uint8Array; // Q_PARAM bytes
  readonly queryBytes: number; // Q_QUERY bytes needed
  readonly aux: boolean; // int8 keeps a per-vector f32 correction
}

export interface TrainingInput {
  readonly dim: number;
  readonly dimPad: number;
  readonly metric: number; // MT_*
  readonly count: number;
  readonly vector: (slot: number) => Float32Array; // decoded, as the kernels see it
  readonly seed: number;
}

const SAMPLE = 10000;
const PQ_SAMPLE = 4096;

/** Trains the quantizer described by config. */
export function trainQuantizer(config: QuantizationConfig, input: TrainingInput): QuantizerState {
  const rng = new SeededRandom(input.seed ^ 0x5bd1e995);
  const slots = sampleIndexes(rng, input.count, SAMPLE);
  if ('scalar' in config) return trainInt8(config, input, slots, config.scalar.quantile ?? 0.99);
  if ('binary' in config) return trainBinary(config, input, slots, config.binary.encoding ?? 'one_bit');
  // k-means on at most PQ_SAMPLE points (16 per centroid) keeps training to seconds even at 784-d
  return trainPq(
    config,
    input,
    slots.length > PQ_SAMPLE ? sampleIndexes(rng, input.count, PQ_SAMPLE) : slots,
    PQ_SUB_DIM[config.product.compression],
    rng,
  );
}

function trainInt8(
  config: QuantizationConfig,
  input: TrainingInput,
  slots: Uint32Array,
  quantile: number,
): QuantizerState {
  const { dim } = input;
  const perVector = Math.max(1, Math.min(dim, Math.floor(2_000_000 / Math.max(1, slots.length))));
  const values = new Float32Array(slots.length * perVector);
  let at = 0;
  for (const s of slots) {
    const v = input.vector(s);
    // evenly strided subset of each vector's elements when the sample would be too large
    for (let j = 0; j < perVector; j++) values[at++] = v[Math.floor((j * dim) / perVector)];
  }
  values.sort();
  let lo = 0;
  let hi = 0;
  if (values.length > 0) {
    const tail = (1 - quantile) / 2;
    lo = values[Math.min(values.length - 1, Math.floor(tail * (values.length - 1)))];
    hi = values[Math.min(values.length - 1, Math.ceil((1 - tail) * (values.length - 1)))];
  }
  const scale = hi > lo ? (hi - lo) / 255 : 1;
  return {
    config,
    kind: QK.INT8,
    stride: input.dimPad,
    bits: 0,
    subDim: 0,
    lo,
    scale,
    queryMode: 0,
    params: new Uint8Array(0),
    queryBytes: input.dimPad,
    aux: true,
  };
}

function meanStd(input: TrainingInput, slots: Uint32Array): { mean: Float64Array; std: Float64Array } {
  const { dim } = input;
  const mean = new Float64Array(dim);
  const sq = new Float64Array(dim);
  for (const s of slots) {
    const v = input.vector(s);
    for (let d = 0; d < dim; d++) {
      mean[d] += v[d];
      sq[d] += v[d] * v[d];
    }
  }
  const n = Math.max(1, slots.length);
  const std = new Float64Array(dim);
  for (let d = 0; d < dim; d++) {
    mean[d] /= n;
    std[d] = Math.sqrt(Math.max(0, sq[d] / n - mean[d] * mean[d]));
  }
  return { mean, std };
}

/**
 * Bit layout per encoding (thresholds relative to the per-dimension mean m and deviation s):
 * one_bit: x > m; two_bits: x > m - s/2 and x > m + s/2 (a thermometer code of 3 levels);
 * one_and_half_bits: two bits on even dimensions, one bit on odd ones (3 bits per pair).
 */
function trainBinary(
  config: QuantizationConfig & { binary: object },
  input: TrainingInput,
  slots: Uint32Array,
  encoding: BinaryEncoding,
): QuantizerState {
  const { dim } = input;
  const { mean, std } = meanStd(input, slots);
  const bitDim: number[] = [];
  const bitThr: number[] = [];
  for (let d = 0; d < dim; d++) {
    const two = encoding === 'two_bits' || (encoding === 'one_and_half_bits' && d % 2 === 0);
    if (two) {
      bitDim.push(d, d);
      bitThr.push(mean[d] - std[d] / 2, mean[d] + std[d] / 2);
    } else {
      bitDim.push(d);
      bitThr.push(mean[d]);
    }
  }
  const bits = bitDim.length;
  const words = Math.ceil(bits / 64);
  const params = new ArrayBuffer(bits * 8 + dim * 8);
  new Uint32Array(params, 0, bits).set(bitDim);
  new Float32Array(params, bits * 4, bits).set(bitThr);
  const wScale = new Float32Array(params, bits * 8, dim);
  const wShift = new Float32Array(params, bits * 8 + dim * 4, dim);
  for (let d = 0; d < dim; d++) {
    wScale[d] = std[d] > 0 ? std[d] : 1;
    wShift[d] = input.metric === MT.DOT ? 0 : mean[d];
  }
  const qe = (config as { binary: { queryEncoding?: string } }).binary.queryEncoding ?? 'default';
  const queryMode = qe === 'scalar8bits' ? 8 : qe === 'scalar4bits' ? 4 : 0;
  return {
    config,
    kind: QK.BINARY,
    stride: words * 8,
    bits,
    subDim: 0,
    lo: 0,
    scale: 0,
    queryMode,
    params: new Uint8Array(params),
    queryBytes: 8 * words * 8,
    aux: false,
  };
}

/** k-means (Lloyd, seeded init from the sample) per sub-space, 256 centroids, assignment in WASM. */
function trainPq(
  config: QuantizationConfig,
  input: TrainingInput,
  slots: Uint32Array,
  subDim: number,
  rng: SeededRandom,
): QuantizerState {
  const { dim } = input;
  const nSub = Math.ceil(dim / subDim);
  const n = slots.length;
  const k = 256;
  const codebooks = new Float32Array(nSub * k * subDim);
  const pointsBytes = n * subDim * 4;
  const { wasm, views, base } = scratchKernels(pointsBytes + k * subDim * 4 + n * 4 + 64);
  const pPtr = base;
  const cPtr = pPtr + pointsBytes;
  const lPtr = cPtr + k * subDim * 4;
  const sample = Array.from(slots, (s) => input.vector(s));
  const iterations = 8;
  for (let s = 0; s < nSub; s++) {
    const points = new Float32Array(n * subDim);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < subDim; j++) {
        const d = s * subDim + j;
        points[i * subDim + j] = d < dim ? sample[i][d] : 0;
      }
    }
    const cents = new Float32Array(k * subDim);
    for (let c = 0; c < k; c++) {
      const src = n > 0 ? rng.int(n) : 0;
      for (let j = 0; j < subDim; j++) cents[c * subDim + j] = n > 0 ? points[src * subDim + j] : 0;
    }
    views.f32.set(points, pPtr >>> 2);
    const assignWasm = (c: Float32Array): Uint32Array => {
      views.f32.set(c, cPtr >>> 2);
      wasm.assignCentroids(pPtr, n, cPtr, k, subDim, lPtr);
      return views.u32.subarray(lPtr >>> 2, (lPtr >>> 2) + n);
    };
    const sums = new Float64Array(k * subDim);
    const counts = new Uint32Array(k);
    for (let it = 0; it < iterations && n > 0; it++) {
      const labels = subDim === 1 ? assign1d(points, cents) : assignWasm(cents);
      sums.fill(0);
      counts.fill(0);
      for (let i = 0; i < n; i++) {
        const c = labels[i];
        counts[c]++;
        for (let j = 0; j < subDim; j++) sums[c * subDim + j] += points[i * subDim + j];
      }
      for (let c = 0; c < k; c++) {
        if (counts[c] === 0) {
          // empty cluster: restart it on a random sample point
          const src = rng.int(n);
          for (let j = 0; j < subDim; j++) cents[c * subDim + j] = points[src * subDim + j];
        } else {
          for (let j = 0; j < subDim; j++) cents[c * subDim + j] = sums[c * subDim + j] / counts[c];
        }
      }
    }
    codebooks.set(cents, s * k * subDim);
  }
  return {
    config,
    kind: QK.PQ,
    stride: Math.ceil(nSub / 16) * 16,
    bits: nSub,
    subDim,
    lo: 0,
    scale: 0,
    queryMode: 0,
    params: new Uint8Array(codebooks.buffer),
    queryBytes: nSub * k * 4,
    aux: false,
  };
}

/** 1-d assignment: sort centroids once, then binary-search each point (O(n log k) instead of O(n k)). */
function assign1d(points: Float32Array, cents: Float32Array): Uint32Array {
  const order = Array.from(cents.keys()).sort((a, b) => cents[a] - cents[b]);
  const sorted = Float32Array.from(order, (i) => cents[i]);
  const labels = new Uint32Array(points.length);
  for (let i = 0; i < points.length; i++) {
    const x = points[i];
    let lo = 0;
    let hi = sorted.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    const best = lo > 0 && x - sorted[lo - 1] <= sorted[lo] - x ? lo - 1 : lo;
    labels[i] = order[best];
  }
  return labels;
}

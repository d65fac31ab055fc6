// Quantization settings, shaped like Qdrant's QuantizationConfig (one of scalar / product / binary).
import { EngineInputError } from '../errors';

/** Scalar int8 quantization; `quantile` (0.5..1, default 0.99) clips outliers before choosing the range. */
export interface ScalarQuantization {
  readonly type?: 'int8';
  readonly quantile?: number;
  readonly alwaysRam?: boolean;
}
/** Product quantization with compression x4..x64 (bytes per vector = 4 * dim / ratio). */
export interface ProductQuantization {
  readonly compression: 'x4' | 'x8' | 'x16' | 'x32' | 'x64';
  readonly alwaysRam?: boolean;
}
export type BinaryEncoding = 'one_bit' | 'two_bits' | 'one_and_half_bits';
export type BinaryQueryEncoding = 'default' | 'binary' | 'scalar4bits' | 'scalar8bits';
/** Binary quantization with 1, 1.5 or 2 bits per dimension and a choice of query encoding. */
export interface BinaryQuantization {
  readonly encoding?: BinaryEncoding;
  readonly queryEncoding?: BinaryQueryEncoding;
  readonly alwaysRam?: boolean;
}
export type QuantizationConfig =
  | { readonly scalar: ScalarQuantization }
  | { readonly product: ProductQuantization }
  | { readonly binary: BinaryQuantization };

/** Per-search quantization switches (Qdrant's QuantizationSearchParams). */
export interface QuantizationSearchParams {
  /** Search the original vectors only. Default false. */
  readonly ignore?: boolean;
  /** Re-rank candidates on the original vectors. Default true. */
  readonly rescore?: boolean;
  /** Fetch k * oversampling candidates before rescoring. Default 1 (Qdrant's default), >= 1. */
  readonly oversampling?: number;
}

export const PQ_SUB_DIM: Record<ProductQuantization['compression'], number> = { x4: 1, x8: 2, x16: 4, x32: 8, x64: 16 };

export function checkQuantizationConfig(q: QuantizationConfig): void {
  if ('scalar' in q) {
    const quantile = q.scalar.quantile ?? 0.99;
    if (!(quantile >= 0.5 && quantile <= 1))
      throw new EngineInputError(`quantization.scalar.quantile: expected 0.5..1, got ${quantile}`);
    if (q.scalar.type !== undefined && q.scalar.type !== 'int8')
      throw new EngineInputError(`quantization.scalar.type: only int8 is supported`);
  } else if ('product' in q) {
    if (!(q.product.compression in PQ_SUB_DIM))
      throw new EngineInputError(
        `quantization.product.compression: expected x4|x8|x16|x32|x64, got ${q.product.compression}`,
      );
  } else if ('binary' in q) {
    const e = q.binary.encoding ?? 'one_bit';
    if (!['one_bit', 'two_bits', 'one_and_half_bits'].includes(e))
      throw new EngineInputError(`quantization.binary.encoding: unknown ${e}`);
    const qe = q.binary.queryEncoding ?? 'default';
    if (!['default', 'binary', 'scalar4bits', 'scalar8bits'].includes(qe))
      throw new EngineInputError(`quantization.binary.queryEncoding: unknown ${qe}`);
  } else {
    throw new EngineInputError('quantization: expected one of scalar, product, binary');
  }
}

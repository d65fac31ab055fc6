import { QuantizationConfig, quantizedAlwaysInMemory } from '@vectorstore/collections';
import { QuantizationConfig as EngineQuantization } from '@vectorstore/engine';

/** Our quantization names (Qdrant's) to the engine's. */
export function engineQuantization(q: QuantizationConfig | undefined): EngineQuantization | undefined {
  // TurboQuant has no engine counterpart yet: searches use the original vectors (see docs/storage.md).
  if (!q || 'turbo' in q) return undefined;
  if ('scalar' in q)
    return { scalar: { type: 'int8', quantile: q.scalar.quantile, alwaysRam: quantizedAlwaysInMemory(q.scalar) } };
  if ('product' in q)
    return { product: { compression: q.product.compression, alwaysRam: quantizedAlwaysInMemory(q.product) } };
  const encoding = { OneBit: 'one_bit', TwoBits: 'two_bits', OneAndHalfBits: 'one_and_half_bits' } as const;
  const queryEncoding = {
    Default: 'default',
    Binary: 'binary',
    Scalar4Bits: 'scalar4bits',
    Scalar8Bits: 'scalar8bits',
  } as const;
  return {
    binary: {
      alwaysRam: quantizedAlwaysInMemory(q.binary),
      encoding: q.binary.encoding ? encoding[q.binary.encoding] : undefined,
      queryEncoding: q.binary.queryEncoding ? queryEncoding[q.binary.queryEncoding] : undefined,
    },
  } as EngineQuantization;
}

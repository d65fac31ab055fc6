// Graph addressing: level 0 is one flat block of fixed-size records ((count, m0 ids) per slot); upper
// levels come from a pool of (count, m ids) records, level l of a slot at record upOff[slot] + l - 1.
import * as S from '../state';

@inline export function neighbors(slot: u32, level: i32): usize {
  if (level == 0) return S.l0Base + <usize>slot * S.l0Stride;
  return S.upperBase + (<usize>load<u32>(S.upOffBase + (<usize>slot << 2)) + <usize>(level - 1)) * S.upStride;
}

@inline export function levelOf(slot: u32): i32 {
  return <i32>load<u8>(S.levelBase + <usize>slot);
}

@inline export function isDeleted(slot: u32): bool {
  return (load<u8>(S.deletedBase + <usize>(slot >> 3)) & (<u8>1 << <u8>(slot & 7))) != 0;
}

@inline export function isAllowed(slot: u32): bool {
  return (load<u8>(S.allowedBase + <usize>(slot >> 3)) & (<u8>1 << <u8>(slot & 7))) != 0;
}

/** A slot may appear in results: not deleted and, when a filter is active, allowed. */
@inline export function accepted(slot: u32): bool {
  if (S.deletedCount > 0 && isDeleted(slot)) return false;
  return !S.useAllowed || isAllowed(slot);
}

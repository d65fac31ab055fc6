import { crc32 } from 'node:zlib';

/**
 * JSON documents that carry a checksum of their own content, so that a flipped byte or a torn write is detected
 * when the file is read instead of being taken as data. The checksum is the last field, `checksum`:
 * `crc32:<8 hex digits>`, the CRC-32 (zlib's) of the document without that field, serialised compactly by the
 * document's own serialiser. Checking re-serialises what was parsed, so the file's indentation does not matter,
 * while any change to a value, key or number does. A document without the field (written before checksums) is
 * reported as `unsealed`, and the caller decides whether that is acceptable.
 */
export const CHECKSUM_FIELD = 'checksum';

const PREFIX = 'crc32:';

export type SealCheck =
  | { state: 'valid' | 'unsealed' }
  | { state: 'mismatch'; expected: string; actual: string }
  | { state: 'malformed'; reason: string };

/** `crc32:<hex>` of `data` (CRC-32 as zlib computes it: native, several GB/s). */
export function crc32Checksum(data: string | Uint8Array): string {
  return `${PREFIX}${hex32(crc32(data))}`;
}

/** A 32-bit checksum as 8 lowercase hex digits. */
export function hex32(value: number): string {
  return (value >>> 0).toString(16).padStart(8, '0');
}

/** `doc` with its checksum as the last field (a `checksum` it already had is replaced). */
export function sealJson<T extends object>(doc: T, stringify: (value: unknown) => string): T & { checksum: string } {
  const content = withoutChecksum(doc);
  return { ...content, [CHECKSUM_FIELD]: crc32Checksum(stringify(content)) } as T & { checksum: string };
}

/** Whether the parsed document `parsed` still holds what was sealed. */
export function checkSealedJson(parsed: unknown, stringify: (value: unknown) => string): SealCheck {
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return { state: 'malformed', reason: 'not a JSON object' };
  if (!Object.prototype.hasOwnProperty.call(parsed, CHECKSUM_FIELD)) return { state: 'unsealed' };
  const expected = (parsed as Record<string, unknown>)[CHECKSUM_FIELD];
  if (typeof expected !== 'string' || !/^crc32:[0-9a-f]{8}$/.test(expected))
    return { state: 'malformed', reason: `its ${CHECKSUM_FIELD} field is not crc32:<8 hex digits>` };
  const actual = crc32Checksum(stringify(withoutChecksum(parsed)));
  return actual === expected ? { state: 'valid' } : { state: 'mismatch', expected, actual };
}

/** A one-line description of a failed check, for messages that name the file. */
export function describeSealCheck(check: SealCheck): string {
  switch (check.state) {
    case 'mismatch':
      return `checksum mismatch (${check.expected} recorded, ${check.actual} computed)`;
    case 'malformed':
      return check.reason;
    default:
      return check.state;
  }
}

/** The document without its checksum field, keys in their order (own properties only, `__proto__` included). */
function withoutChecksum(doc: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(doc)) {
    if (key === CHECKSUM_FIELD) continue;
    Object.defineProperty(out, key, {
      value: (doc as Record<string, unknown>)[key],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

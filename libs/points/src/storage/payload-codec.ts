import { JsonObject, JsonValue, setOwn } from '@vectorstore/common';

/**
 * Payload records of on-disk segments as JSON text, which V8 parses several times faster than
 * `v8.deserialize` (measured 0.8 µs against 4 µs for a small payload). JSON has no 64-bit integers,
 * so a bigint is written as a string tagged with a leading NUL ("\0i123"), and a string that itself
 * starts with NUL gets a "\0s" tag; decoding walks the object only when a tag is present.
 */
const TAG = '\u0000';

export function encodePayload(payload: JsonObject): Buffer {
  return Buffer.from(
    JSON.stringify(payload, (_key, value: unknown) => {
      if (typeof value === 'bigint') return `${TAG}i${value}`;
      if (typeof value === 'string' && value.startsWith(TAG)) return `${TAG}s${value}`;
      return value;
    }),
    'utf8',
  );
}

export function decodePayload(text: string): JsonObject {
  const parsed = JSON.parse(text) as JsonObject;
  // JSON.stringify writes NUL as an escape, so an untagged record has no "\u0000" in its text.
  return text.includes('\\u0000') ? (untag(parsed) as JsonObject) : parsed;
}

function untag(value: JsonValue): JsonValue {
  if (typeof value === 'string') {
    if (value.charCodeAt(0) !== 0) return value;
    return value[1] === 'i' ? BigInt(value.slice(2)) : value.slice(2);
  }
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      if (typeof item === 'object' || typeof item === 'string') value[i] = untag(item);
    }
    return value;
  }
  const object = value as JsonObject;
  for (const key in object) {
    const item = object[key];
    if (typeof item !== 'object' && typeof item !== 'string') continue;
    const next = untag(item);
    if (next === item) continue;
    // own-property write: a key may be "__proto__"
    if (key === '__proto__') setOwn(object, key, next);
    else object[key] = next;
  }
  return object;
}

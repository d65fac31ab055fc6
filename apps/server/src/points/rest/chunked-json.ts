import { RestRawJson, stringifyRestJson } from '../../core/rest/rest-json';

/** Items encoded between two yields to the event loop. */
const CHUNK = 128;

/**
 * A list of answer items (records, scored points) encoded to JSON in chunks, yielding to the event
 * loop between chunks: thousands of points with vectors take hundreds of milliseconds to encode,
 * and other requests must not wait that long. Short lists are encoded at once.
 */
export async function encodeList<T>(items: readonly T[], encode: (item: T) => unknown): Promise<RestRawJson> {
  if (items.length <= CHUNK) return new RestRawJson(stringifyRestJson(items.map(encode)));
  const parts: string[] = [];
  for (let start = 0; start < items.length; start += CHUNK) {
    if (start > 0) await new Promise((resolve) => setImmediate(resolve));
    const text = stringifyRestJson(items.slice(start, start + CHUNK).map(encode));
    parts.push(text.slice(1, -1));
  }
  return new RestRawJson(`[${parts.join(',')}]`);
}

import { DomainError } from '@vectorstore/common';
import { canonicalUuid, MAX_U64, PointId } from '@vectorstore/points';
import { Decoder, array } from '../../core/rest/rest-decoders';
import { bodyFormatError } from '../../core/rest/rest-format.error';

/** How serde_value prints a rejected id in `value … is not a valid point ID`. */
function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'bigint' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null) return 'null';
  return Array.isArray(value) ? 'a sequence' : 'a map';
}

/** A point id in a body: a JSON integer in 0..2^64−1 or a UUID string in any notation (400 otherwise). */
export const pointIdDecoder: Decoder<PointId> = (value, path) => {
  if (typeof value === 'bigint' && value >= 0n && value <= MAX_U64) return value;
  if (typeof value === 'string') {
    const uuid = canonicalUuid(value);
    if (uuid !== undefined) return uuid;
  }
  throw bodyFormatError(
    path,
    `value ${shown(value)} is not a valid point ID, valid values are either an unsigned integer or a UUID`,
  );
};

export const pointIdsDecoder: Decoder<PointId[]> = array(pointIdDecoder);

/** The id in `GET /collections/{c}/points/{id}`: a u64 first, else a UUID; else Qdrant's 400. */
export function pointIdFromPath(text: string): PointId {
  if (/^\d+$/.test(text)) {
    const value = BigInt(text);
    if (value <= MAX_U64) return value;
  }
  const uuid = canonicalUuid(text);
  if (uuid !== undefined) return uuid;
  throw DomainError.invalidArgument(`Wrong input: Can not recognize "${text}" as point id`);
}

/** Ids go out as exact integers (bigint) or lowercase hyphenated UUIDs. */
export function pointIdToRest(id: PointId): bigint | string {
  return id;
}

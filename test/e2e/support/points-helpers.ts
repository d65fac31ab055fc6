import * as grpc from '@grpc/grpc-js';
import { unary } from './grpc-clients';

/** A JSON payload value; integers beyond 2^53 travel as bigint. */
export type Json = null | boolean | number | bigint | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** proto-loader shape of vectorstore.Value (input: oneof members as plain fields). */
export type ProtoValue = Record<string, unknown>;

/** JSON -> proto Value (integers as integer_value, other numbers as double_value). */
export function toValue(value: Json): ProtoValue {
  if (value === null) return { nullValue: 'NULL_VALUE' };
  if (typeof value === 'boolean') return { boolValue: value };
  if (typeof value === 'bigint') return { integerValue: value.toString() };
  if (typeof value === 'number')
    return Number.isInteger(value) ? { integerValue: String(value) } : { doubleValue: value };
  if (typeof value === 'string') return { stringValue: value };
  if (Array.isArray(value)) return { listValue: { values: value.map(toValue) } };
  return { structValue: { fields: toPayload(value) } };
}

export function toPayload(payload: JsonObject): Record<string, ProtoValue> {
  return Object.fromEntries(Object.entries(payload).map(([k, v]) => [k, toValue(v)]));
}

/** proto Value (proto-loader output, longs as strings) -> JSON; unsafe integers become bigint. */
export function fromValue(value: ProtoValue): Json {
  const kind = value.kind as string | undefined;
  switch (kind) {
    case 'nullValue':
      return null;
    case 'boolValue':
      return value.boolValue as boolean;
    case 'doubleValue':
      return value.doubleValue as number;
    case 'integerValue': {
      const big = BigInt(value.integerValue as string);
      return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
    }
    case 'stringValue':
      return value.stringValue as string;
    case 'listValue':
      return ((value.listValue as { values?: ProtoValue[] }).values ?? []).map(fromValue);
    case 'structValue':
      return fromPayload((value.structValue as { fields?: Record<string, ProtoValue> }).fields ?? {});
    default:
      throw new Error(`Value without a kind: ${JSON.stringify(value)}`);
  }
}

export function fromPayload(payload: Record<string, ProtoValue> | undefined): JsonObject {
  return Object.fromEntries(Object.entries(payload ?? {}).map(([k, v]) => [k, fromValue(v)]));
}

/** A point id as a number (numeric id) or a string (UUID, or a decimal string for u64 beyond 2^53). */
export type Id = number | string;

export function pid(id: Id): { num: string } | { uuid: string } {
  if (typeof id === 'number') return { num: String(id) };
  return /^\d+$/.test(id) ? { num: id } : { uuid: id };
}

/** Proto-loader output PointId -> the same key form as `keyOf`. */
export function idOf(id: { num?: string; uuid?: string } | undefined): string {
  if (!id) throw new Error('missing id');
  if (id.num !== undefined) return `n:${id.num}`;
  if (id.uuid !== undefined) return `u:${id.uuid.toLowerCase()}`;
  throw new Error(`empty id ${JSON.stringify(id)}`);
}

export function keyOf(id: Id): string {
  const p = pid(id);
  return 'num' in p ? `n:${p.num}` : `u:${p.uuid.toLowerCase()}`;
}

/** Qdrant's id order: numeric ids ascending, then UUIDs (by their 128-bit value = lower-case hex order). */
export function compareKeys(a: string, b: string): number {
  if (a[0] !== b[0]) return a[0] === 'n' ? -1 : 1;
  if (a[0] === 'n') {
    const x = BigInt(a.slice(2));
    const y = BigInt(b.slice(2));
    return x < y ? -1 : x > y ? 1 : 0;
  }
  const x = a.slice(2).replace(/-/g, '');
  const y = b.slice(2).replace(/-/g, '');
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Dense data of a VectorOutput, from `dense` or the deprecated flat `data`. */
export function denseOf(vector: { dense?: { data?: number[] }; data?: number[] } | undefined): number[] | undefined {
  if (!vector) return undefined;
  if (vector.dense?.data?.length) return vector.dense.data;
  if (vector.data?.length && !('indices' in vector && vector.indices)) return vector.data;
  return undefined;
}

export interface RetrievedPoint {
  id: { num?: string; uuid?: string };
  payload?: Record<string, ProtoValue>;
  vectors?: {
    vector?: VectorOutput;
    vectors?: { vectors: Record<string, VectorOutput> };
  };
  orderValue?: { int?: string; float?: number };
}
export interface VectorOutput {
  data?: number[];
  indices?: { data: number[] };
  dense?: { data: number[] };
  sparse?: { values: number[]; indices: number[] };
  vector?: string;
}
export interface ScoredPoint extends RetrievedPoint {
  score: number;
}
export interface UpdateResult {
  operationId?: string;
  status: string;
}
export interface OperationResponse {
  result: UpdateResult;
  time: number;
}

/** Awaits `promise`, expects a gRPC error with `code` (and `messagePart` in its details); returns it. */
export async function expectGrpcError(
  promise: Promise<unknown>,
  code: grpc.status,
  messagePart?: string | RegExp,
): Promise<grpc.ServiceError> {
  const error = (await promise.then(
    (value) => ({ resolvedWith: value }),
    (e: unknown) => e,
  )) as grpc.ServiceError & { resolvedWith?: unknown };
  if (error && 'resolvedWith' in error) {
    throw new Error(
      `expected gRPC error ${grpc.status[code]} but the call succeeded with ${JSON.stringify(error.resolvedWith).slice(0, 300)}`,
    );
  }
  expect({ code: grpc.status[error.code] ?? error.code, details: error.details }).toMatchObject({
    code: grpc.status[code],
  });
  if (messagePart !== undefined) expect(error.details).toMatch(messagePart);
  return error;
}

/** Typed wrapper over `unary` for a Points (or Collections) client. */
export function caller(client: grpc.Client) {
  return <Res = OperationResponse>(method: string, request: object): Promise<Res> =>
    unary<object, Res>(client, method, request);
}

/** Dense vectors of a PointStruct: the unnamed vector (flat `data` or `dense`) or named ones. */
export function unnamed(vector: number[], flat = false): object {
  return { vector: flat ? { data: vector } : { dense: { data: vector } } };
}

export function named(vectors: Record<string, number[]>): object {
  return {
    vectors: { vectors: Object.fromEntries(Object.entries(vectors).map(([k, v]) => [k, { dense: { data: v } }])) },
  };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Every point of `ids` the server returns (with payload and vectors), by id key, fetched in chunks of 500. */
export async function fetchPoints(
  client: grpc.Client,
  collectionName: string,
  ids: readonly Id[],
): Promise<Map<string, RetrievedPoint>> {
  const found = new Map<string, RetrievedPoint>();
  for (let i = 0; i < ids.length; i += 500) {
    const { result } = await unary<object, { result: RetrievedPoint[] }>(client, 'Get', {
      collectionName,
      ids: ids.slice(i, i + 500).map(pid),
      withPayload: { enable: true },
      withVectors: { enable: true },
    });
    for (const point of result) found.set(idOf(point.id), point);
  }
  return found;
}

/** JSON text of a payload with bigints kept apart from numbers (`"123n"`), for comparisons. */
export function payloadText(payload: JsonObject): string {
  return JSON.stringify(payload, (_key, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value));
}

/**
 * What is missing or different among `ids` in `found` (from fetchPoints), against `pointOf(id)`:
 * the unnamed dense vector (to 1e-6) and the payload.
 */
export function pointProblems(
  found: Map<string, RetrievedPoint>,
  ids: readonly number[],
  pointOf: (id: number) => { vector: number[]; payload: JsonObject },
): string[] {
  const issues: string[] = [];
  for (const id of ids) {
    const point = found.get(`n:${id}`);
    if (!point) {
      issues.push(`${id}: missing`);
      continue;
    }
    const expected = pointOf(id);
    const vector = denseOf(point.vectors?.vector);
    if (
      !vector ||
      vector.length !== expected.vector.length ||
      vector.some((x, k) => Math.abs(x - expected.vector[k]) > 1e-6)
    )
      issues.push(`${id}: vector differs`);
    const payload = payloadText(fromPayload(point.payload));
    if (payload !== payloadText(expected.payload)) issues.push(`${id}: payload ${payload}`);
  }
  return issues;
}

/** Polls `probe` every `everyMs` until it returns a truthy value or `timeoutMs` elapses (then returns the last value). */
export async function pollUntil<T>(probe: () => Promise<T>, timeoutMs: number, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await probe();
  while (!last && Date.now() < deadline) {
    await sleep(everyMs);
    last = await probe();
  }
  return last;
}

/** Scores as Qdrant reports them: similarity (higher is closer) for Dot/Cosine, distance (lower) for Euclid/Manhattan. */
export type DistanceName = 'Dot' | 'Cosine' | 'Euclid' | 'Manhattan';

export function score(distance: DistanceName, query: number[], vector: number[]): number {
  switch (distance) {
    case 'Dot':
      return query.reduce((s, q, i) => s + q * vector[i], 0);
    case 'Cosine': {
      const nq = Math.hypot(...query);
      const nv = Math.hypot(...vector);
      return query.reduce((s, q, i) => s + (q / nq) * (vector[i] / nv), 0);
    }
    case 'Euclid':
      return Math.sqrt(query.reduce((s, q, i) => s + (q - vector[i]) ** 2, 0));
    case 'Manhattan':
      return query.reduce((s, q, i) => s + Math.abs(q - vector[i]), 0);
  }
}

export const higherIsBetter = (distance: DistanceName) => distance === 'Dot' || distance === 'Cosine';

/** Brute-force top-k: [key, score] best first. */
export function topK(
  distance: DistanceName,
  query: number[],
  candidates: Array<[string, number[]]>,
  k: number,
): Array<[string, number]> {
  const scored = candidates.map(([key, v]) => [key, score(distance, query, v)] as [string, number]);
  scored.sort((a, b) => (higherIsBetter(distance) ? b[1] - a[1] : a[1] - b[1]));
  return scored.slice(0, k);
}

/**
 * Compares a server ranking with a brute-force one (`expected` may hold one extra entry past the limit, for tie checks):
 * same length as `limit`, same scores position by position (to `tolerance`), and the same ids wherever the brute-force
 * scores around that position are not near-ties (closer than `tieGap`).
 */
export function expectSameRanking(
  actual: Array<[string, number]>,
  expected: Array<[string, number]>,
  limit: number,
  tolerance = 1e-4,
  tieGap = 1e-5,
): void {
  const problems: string[] = [];
  const n = Math.min(limit, expected.length);
  if (actual.length !== n) problems.push(`length ${actual.length} != ${n}`);
  for (let i = 0; i < Math.min(n, actual.length); i++) {
    if (Math.abs(actual[i][1] - expected[i][1]) > tolerance)
      problems.push(`#${i}: score ${actual[i][1]} != ${expected[i][1]}`);
    const tiedBefore = i > 0 && Math.abs(expected[i][1] - expected[i - 1][1]) < tieGap;
    const tiedAfter = i + 1 < expected.length && Math.abs(expected[i][1] - expected[i + 1][1]) < tieGap;
    if (!tiedBefore && !tiedAfter && actual[i][0] !== expected[i][0])
      problems.push(`#${i}: id ${actual[i][0]} != ${expected[i][0]}`);
  }
  expect(problems).toEqual([]);
}

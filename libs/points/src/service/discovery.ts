import { PointId } from '../model/point-id.model';
import {
  ContextPair,
  DiscoverInput,
  LookupLocation,
  PrefetchQuery,
  QueryVariant,
  VectorInput,
} from '../model/query.model';
import { Vector } from '../model/vectors.model';
import { VectorSpace } from '../storage/vector-space';

/**
 * Discovery and context search, with Qdrant's scores (its `DiscoverQuery` and `ContextQuery`).
 * Both compare raw similarities (higher is closer) and report scores where higher is better,
 * whatever the distance: they are not turned back into distances, as Qdrant does not either.
 */

/** Qdrant's context loss margin: f32::EPSILON. */
export const CONTEXT_MARGIN = 1.1920929e-7;

/** x / (1 + |x|): a sigmoid without `exp`, in (-1, 1). */
export function fastSigmoid(x: number): number {
  return x / (1 + Math.abs(x));
}

/** {@link fastSigmoid} scaled into (0, 1). */
export function scaledFastSigmoid(x: number): number {
  return 0.5 * (fastSigmoid(x) + 1);
}

/**
 * The similarity Qdrant's custom queries compare, from the score a store reports: Euclid reports
 * the distance and compares minus its square; Manhattan compares minus the distance (dense or
 * multivector alike); dot, cosine and sparse scores already are similarities.
 */
export function rawSimilarity(space: VectorSpace, score: number): number {
  if (space.kind === 'sparse') return score;
  if (space.distance === 'Euclid') return -(score * score);
  if (space.distance === 'Manhattan') return -score;
  return score;
}

/** A candidate's similarities to the two examples of one context pair. */
export interface PairSimilarity {
  positive: number;
  negative: number;
}

/**
 * Discovery score: each pair adds +1 when the point is more similar to its positive example, -1
 * when more similar to the negative one and 0 on a tie; the target similarity, squashed into
 * (0, 1), is added. Context therefore ranks first, and the target orders points within a rank.
 */
export function discoveryScore(target: number, pairs: readonly PairSimilarity[]): number {
  let rank = 0;
  for (const pair of pairs) rank += Math.sign(pair.positive - pair.negative);
  return Math.fround(rank + scaledFastSigmoid(target));
}

/**
 * Context score: the sum over pairs of fastSigmoid(min(positive - negative - margin, 0)). Points on
 * the positive side of every pair score 0; each pair they miss costs up to 1, smoothly.
 */
export function contextScore(pairs: readonly PairSimilarity[]): number {
  let score = 0;
  for (const pair of pairs) score += fastSigmoid(Math.min(pair.positive - pair.negative - CONTEXT_MARGIN, 0));
  return Math.fround(score);
}

/** A discover or context query with every example resolved to a vector. */
export interface ResolvedContextQuery {
  /** Absent for a context search. */
  target?: Vector;
  pairs: Array<{ positive: Vector; negative: Vector }>;
}

/**
 * Scores candidates for a resolved discover or context query, best first. `similarities(example)`
 * gives each candidate's raw similarity to an example by candidate key; a candidate missing from
 * any map has no vector in the space and is dropped.
 */
export function scoreContextQuery<C extends { key: string; score: number }>(
  candidates: readonly C[],
  query: ResolvedContextQuery,
  similarities: (example: Vector) => Map<string, number>,
): C[] {
  const target = query.target ? similarities(query.target) : undefined;
  const pairs = query.pairs.map((pair) => ({
    positive: similarities(pair.positive),
    negative: similarities(pair.negative),
  }));
  const result: C[] = [];
  for (const c of candidates) {
    const sims: PairSimilarity[] = [];
    let complete = true;
    for (const pair of pairs) {
      const positive = pair.positive.get(c.key);
      const negative = pair.negative.get(c.key);
      if (positive === undefined || negative === undefined) {
        complete = false;
        break;
      }
      sims.push({ positive, negative });
    }
    const targetSimilarity = target?.get(c.key);
    if (!complete || (target && targetSimilarity === undefined)) continue;
    const score = targetSimilarity === undefined ? contextScore(sims) : discoveryScore(targetSimilarity, sims);
    result.push({ ...c, score });
  }
  return result.sort((a, b) => b.score - a.score);
}

/** Every example of a discover input or a context, target first. */
export function contextExamples(query: { discover: DiscoverInput } | { context: ContextPair[] }): VectorInput[] {
  const pairs = 'discover' in query ? query.discover.context : query.context;
  const examples = pairs.flatMap((pair) => [pair.positive, pair.negative]);
  return 'discover' in query ? [query.discover.target, ...examples] : examples;
}

/** The point ids among some examples (given by id rather than by vector). */
export function exampleIds(examples: readonly VectorInput[]): PointId[] {
  return examples.flatMap((example) => ('pointId' in example ? [example.pointId] : []));
}

/**
 * Ids of the points a query and its prefetches use as inputs (nearest by id, recommend, discover and
 * context examples) whose lookup (the stage's, else the root's) is `local`: Qdrant leaves those
 * points out of the results.
 */
export function referencedIdsOf(
  root: PrefetchQuery,
  local: (lookup: LookupLocation | undefined) => boolean,
): PointId[] {
  const ids: PointId[] = [];
  const visit = (stage: PrefetchQuery) => {
    const query = stage.query;
    if (query && local(stage.lookupFrom ?? root.lookupFrom)) ids.push(...exampleIds(inputsOf(query)));
    stage.prefetch.forEach(visit);
  };
  visit(root);
  return ids;
}

function inputsOf(query: QueryVariant): VectorInput[] {
  if ('nearest' in query) return [query.nearest];
  if ('recommend' in query) return [...query.recommend.positive, ...query.recommend.negative];
  if ('discover' in query || 'context' in query) return contextExamples(query);
  return [];
}

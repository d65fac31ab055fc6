import type {
  ContextPair,
  LookupLocation,
  PrefetchQuery,
  QueryRequest,
  QueryVariant,
  VectorInput,
} from '@vectorstore/points';

// The examples of a query tree (nearest, recommend, discover, context and relevance-feedback inputs),
// for a coordinator that resolves examples given by point id before the query goes to other peers.

/** Where an example of `stage` is looked up: the stage's `lookup_from`, else the root's. */
export type InputMapper = (input: VectorInput, stage: PrefetchQuery, lookup: LookupLocation | undefined) => VectorInput;

/** Every stage of the tree (the root first) with the lookup its examples use. */
export function stagesOf(root: QueryRequest): Array<{ stage: PrefetchQuery; lookup: LookupLocation | undefined }> {
  const stages: Array<{ stage: PrefetchQuery; lookup: LookupLocation | undefined }> = [];
  const visit = (stage: PrefetchQuery) => {
    stages.push({ stage, lookup: stage.lookupFrom ?? root.lookupFrom });
    stage.prefetch.forEach(visit);
  };
  visit(root);
  return stages;
}

/** The tree with every example passed through `map` (a new tree; the given one is unchanged). */
export function mapQueryInputs<T extends PrefetchQuery>(root: T, map: InputMapper, rootLookup = root.lookupFrom): T {
  const mapStage = <S extends PrefetchQuery>(stage: S): S => {
    const lookup = stage.lookupFrom ?? rootLookup;
    const one = (input: VectorInput) => map(input, stage, lookup);
    return {
      ...stage,
      query: stage.query && mapVariant(stage.query, one),
      prefetch: stage.prefetch.map(mapStage),
    };
  };
  return mapStage(root);
}

function mapVariant(query: QueryVariant, one: (input: VectorInput) => VectorInput): QueryVariant {
  const pair = (p: ContextPair): ContextPair => ({ positive: one(p.positive), negative: one(p.negative) });
  if ('nearest' in query) return { ...query, nearest: one(query.nearest) };
  if ('recommend' in query)
    return {
      recommend: {
        ...query.recommend,
        positive: query.recommend.positive.map(one),
        negative: query.recommend.negative.map(one),
      },
    };
  if ('discover' in query)
    return { discover: { target: one(query.discover.target), context: query.discover.context.map(pair) } };
  if ('context' in query) return { context: query.context.map(pair) };
  if ('relevanceFeedback' in query)
    return {
      relevanceFeedback: {
        ...query.relevanceFeedback,
        target: one(query.relevanceFeedback.target),
        feedback: query.relevanceFeedback.feedback.map((item) => ({ ...item, example: one(item.example) })),
      },
    };
  return query;
}

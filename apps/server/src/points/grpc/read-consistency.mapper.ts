import type { ValidationIssues } from '@vectorstore/common';
import type { ReadConsistency } from '@vectorstore/points';
import type { ReadConsistency__Output } from '../../grpc/generated/vectorstore/ReadConsistency';

const TYPES = { 0: 'All', 1: 'Majority', 2: 'Quorum', All: 'All', Majority: 'Majority', Quorum: 'Quorum' } as const;

/** `read_consistency` of a read: a type (All, Majority, Quorum) or a factor of at least 1. */
export function readConsistencyFromProto(
  issues: ValidationIssues,
  path: string,
  r: ReadConsistency__Output | null | undefined,
): ReadConsistency | undefined {
  if (!r) return undefined;
  if (r.value === 'factor') {
    const factor = Number(r.factor ?? 0);
    issues.range(`${path}.factor`, factor, 1);
    return factor >= 1 ? { factor } : undefined;
  }
  const type = TYPES[(r.type ?? 0) as keyof typeof TYPES];
  if (type === undefined) {
    issues.add(`${path}.type`, 'must be All, Majority or Quorum');
    return undefined;
  }
  return { type };
}

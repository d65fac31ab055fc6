import { JsonObject } from '@vectorstore/common';
import { Condition, GeoPoint } from './filter.model';

/** Qdrant's formula expression (score boosting), evaluated per candidate in f64 (service/formula.ts). */
export type Expression =
  | { constant: number }
  /** `$score` (the first prefetch's score), `$score[i]`, or a payload key. */
  | { variable: string }
  /** A filter condition: 1 when it holds, else 0. */
  | { condition: Condition }
  | { geoDistance: { origin: GeoPoint; to: string } }
  | { datetime: string }
  | { datetimeKey: string }
  | { mult: Expression[] }
  | { sum: Expression[] }
  | { neg: Expression }
  | { abs: Expression }
  | { sqrt: Expression }
  | { exp: Expression }
  | { log10: Expression }
  | { ln: Expression }
  | { div: { left: Expression; right: Expression; byZeroDefault?: number } }
  | { pow: { base: Expression; exponent: Expression } }
  | { decay: { kind: 'exp' | 'gauss' | 'lin'; x: Expression; target?: Expression; scale?: number; midpoint?: number } };

export interface FormulaQuery {
  expression: Expression;
  /** Values for payload keys (or `$score…`) a point lacks. */
  defaults: JsonObject;
}

import { DomainError, JsonValue } from '@vectorstore/common';
import { parseDatetimeMicros } from '../filter/datetime';
import { geoPointOf, haversineMetres } from '../filter/geo';
import { valuesAt } from '../filter/payload-path';
import { Condition } from '../model/filter.model';
import { Expression, FormulaQuery } from '../model/formula.model';

export type { Expression, FormulaQuery } from '../model/formula.model';
import { Candidate } from './candidate';

/** The payload keys an expression reads and the conditions it tests (strict mode checks both). */
export function expressionInputs(expression: Expression): { keys: string[]; conditions: Condition[] } {
  const keys: string[] = [];
  const conditions: Condition[] = [];
  const visit = (e: Expression): void => {
    if ('variable' in e) {
      if (!e.variable.startsWith('$score')) keys.push(e.variable);
    } else if ('condition' in e) conditions.push(e.condition);
    else if ('geoDistance' in e) keys.push(e.geoDistance.to);
    else if ('datetimeKey' in e) keys.push(e.datetimeKey);
    else if ('mult' in e) e.mult.forEach(visit);
    else if ('sum' in e) e.sum.forEach(visit);
    else if ('neg' in e) visit(e.neg);
    else if ('abs' in e) visit(e.abs);
    else if ('sqrt' in e) visit(e.sqrt);
    else if ('exp' in e) visit(e.exp);
    else if ('log10' in e) visit(e.log10);
    else if ('ln' in e) visit(e.ln);
    else if ('div' in e) {
      visit(e.div.left);
      visit(e.div.right);
    } else if ('pow' in e) {
      visit(e.pow.base);
      visit(e.pow.exponent);
    } else if ('decay' in e) {
      visit(e.decay.x);
      if (e.decay.target) visit(e.decay.target);
    }
  };
  visit(expression);
  return { keys, conditions };
}

const nonFinite = (text: string): DomainError =>
  DomainError.invalidArgument(`Bad request: The expression ${text} produced a non-finite number`);

/**
 * Scores candidates by a formula as Qdrant: `$score[i]` is the point's score in prefetch i (0 when it
 * is not there), payload keys read one number (a missing one takes its default, else the request
 * fails), conditions count 1 or 0; the result must be a finite f32.
 */
export function scoreByFormula(
  formula: FormulaQuery,
  candidates: Candidate[],
  prefetchScores: ReadonlyArray<ReadonlyMap<string, number>>,
): Candidate[] {
  return candidates.map((candidate) => {
    const { segment, slot } = candidate.location;
    const payload = segment.payload(slot);
    const value = (key: string): JsonValue => {
      // Nulls hold no value (as a payload index sees them): such a key takes its default.
      const values = valuesAt(payload, key).filter((v) => v !== null);
      if (values.length === 1) return values[0];
      if (values.length > 1) return values;
      if (Object.hasOwn(formula.defaults, key)) return formula.defaults[key];
      throw DomainError.invalidArgument(
        `Bad request: Wrong type of variable ${key}: expected number, No value found in a payload nor defaults`,
      );
    };
    const number = (key: string): number => {
      const v = value(key);
      if (typeof v === 'number') return v;
      if (typeof v === 'bigint') return Number(v);
      throw DomainError.invalidArgument(
        `Bad request: Wrong type of variable ${key}: expected number, Value is not a number`,
      );
    };
    const evaluate = (e: Expression): number => {
      if ('constant' in e) return e.constant;
      if ('variable' in e) {
        const score = /^\$score(?:\[(\d+)\])?$/.exec(e.variable);
        if (score) {
          const index = score[1] === undefined ? 0 : Number(score[1]);
          const found = prefetchScores[index]?.get(candidate.key);
          if (found !== undefined) return found;
          const fallback = formula.defaults[e.variable];
          return typeof fallback === 'number' ? fallback : 0;
        }
        return number(e.variable);
      }
      if ('condition' in e) return segment.matches(slot, { must: [e.condition] }) ? 1 : 0;
      if ('geoDistance' in e) {
        const point = geoPointOf(value(e.geoDistance.to));
        if (!point)
          throw DomainError.invalidArgument(
            `Bad request: Wrong type of variable ${e.geoDistance.to}: expected geo point`,
          );
        return haversineMetres(e.geoDistance.origin, point);
      }
      if ('datetime' in e || 'datetimeKey' in e) {
        const text = 'datetime' in e ? e.datetime : value(e.datetimeKey);
        const micros = typeof text === 'string' ? parseDatetimeMicros(text) : undefined;
        if (micros === undefined)
          throw DomainError.invalidArgument(`Bad request: Wrong type of variable: expected datetime`);
        return micros / 1_000_000;
      }
      if ('mult' in e) {
        let product = 1;
        for (const item of e.mult) {
          const v = evaluate(item);
          if (v === 0) return 0;
          product *= v;
        }
        return product;
      }
      if ('sum' in e) return e.sum.reduce((total, item) => total + evaluate(item), 0);
      if ('neg' in e) return -evaluate(e.neg);
      if ('abs' in e) return Math.abs(evaluate(e.abs));
      if ('div' in e) {
        const left = evaluate(e.div.left);
        if (left === 0) return 0;
        const right = evaluate(e.div.right);
        if (right === 0 && e.div.byZeroDefault !== undefined) return e.div.byZeroDefault;
        return finite(left / right, `${left}/${right}`);
      }
      if ('sqrt' in e) {
        const v = evaluate(e.sqrt);
        return finite(Math.sqrt(v), `√${v}`);
      }
      if ('pow' in e) {
        const base = evaluate(e.pow.base);
        const exponent = evaluate(e.pow.exponent);
        return finite(base ** exponent, `${base}^${exponent}`);
      }
      if ('exp' in e) {
        const v = evaluate(e.exp);
        return finite(Math.exp(v), `exp(${v})`);
      }
      if ('log10' in e) {
        const v = evaluate(e.log10);
        return finite(Math.log10(v), `log10(${v})`);
      }
      if ('ln' in e) {
        const v = evaluate(e.ln);
        return finite(Math.log(v), `ln(${v})`);
      }
      const { kind, x, target, scale = 1, midpoint = 0.5 } = e.decay;
      const diff = evaluate(x) - (target ? evaluate(target) : 0);
      if (kind === 'lin') return Math.max(0, 1 - ((1 - midpoint) / scale) * Math.abs(diff));
      if (kind === 'exp') return Math.exp((Math.log(midpoint) / scale) * Math.abs(diff));
      return Math.exp((Math.log(midpoint) / (scale * scale)) * diff * diff);
    };
    const score = Math.fround(evaluate(formula.expression));
    if (!Number.isFinite(score)) throw nonFinite(`result ${score}`);
    return { ...candidate, score };
  });
}

function finite(value: number, text: string): number {
  if (!Number.isFinite(value)) throw nonFinite(`${text} = ${value}`);
  return value;
}

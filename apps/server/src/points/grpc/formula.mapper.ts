import { JsonObject, ValidationIssues } from '@vectorstore/common';
import type { Expression, FormulaQuery } from '@vectorstore/points';
import type { Expression__Output } from '../../grpc/generated/vectorstore/Expression';
import type { Formula__Output } from '../../grpc/generated/vectorstore/Formula';
import { fromProtoValue } from '../../core/grpc/json-value.mapper';
import { defined } from '../../core/scalars';
import { conditionFromProto } from './filter.mapper';

const DECAYS = { expDecay: 'exp', gaussDecay: 'gauss', linDecay: 'lin' } as const;
const UNARY = ['neg', 'abs', 'sqrt', 'exp', 'log10', 'ln'] as const;

/** Formula (expression + defaults) to the domain's FormulaQuery; what is missing is reported at its path. */
export function formulaFromProto(
  issues: ValidationIssues,
  path: string,
  f: Formula__Output | undefined,
): FormulaQuery | undefined {
  const expression = expressionFromProto(issues, `${path}.expression`, f?.expression);
  const defaults: JsonObject = {};
  for (const [key, value] of Object.entries(f?.defaults ?? {})) {
    defaults[key] = fromProtoValue(issues, `${path}.defaults.${key}`, value);
  }
  return expression && { expression, defaults };
}

export function expressionFromProto(
  issues: ValidationIssues,
  path: string,
  e: Expression__Output | undefined,
): Expression | undefined {
  const variant = e?.variant;
  if (!e || !variant) {
    issues.add(path, 'must set an expression variant');
    return undefined;
  }
  const sub = (name: string, value: Expression__Output | undefined) =>
    expressionFromProto(issues, `${path}.${name}`, value);
  const list = (name: string, values: Expression__Output[] | undefined) => {
    const mapped = (values ?? []).map((value, i) => expressionFromProto(issues, `${path}.${name}[${i}]`, value));
    return mapped.every((m): m is Expression => m !== undefined) ? mapped : undefined;
  };
  switch (variant) {
    case 'constant':
      return { constant: e.constant ?? 0 };
    case 'variable':
      return { variable: e.variable ?? '' };
    case 'condition': {
      if (!e.condition) {
        issues.add(`${path}.condition`, 'must be set');
        return undefined;
      }
      const condition = conditionFromProto(issues, `${path}.condition`, e.condition);
      return condition && { condition };
    }
    case 'geoDistance':
      return {
        geoDistance: {
          origin: { lat: e.geoDistance?.origin?.lat ?? 0, lon: e.geoDistance?.origin?.lon ?? 0 },
          to: e.geoDistance?.to ?? '',
        },
      };
    case 'datetime':
      return { datetime: e.datetime ?? '' };
    case 'datetimeKey':
      return { datetimeKey: e.datetimeKey ?? '' };
    case 'mult': {
      const mult = list('mult', e.mult?.mult);
      return mult && { mult };
    }
    case 'sum': {
      const sum = list('sum', e.sum?.sum);
      return sum && { sum };
    }
    case 'div': {
      const left = sub('div.left', e.div?.left);
      const right = sub('div.right', e.div?.right);
      return left && right && { div: defined({ left, right, byZeroDefault: e.div?.byZeroDefault }) };
    }
    case 'pow': {
      const base = sub('pow.base', e.pow?.base);
      const exponent = sub('pow.exponent', e.pow?.exponent);
      return base && exponent && { pow: { base, exponent } };
    }
    case 'expDecay':
    case 'gaussDecay':
    case 'linDecay': {
      const params = e[variant];
      const x = sub(`${variant}.x`, params?.x);
      const target = params?.target ? sub(`${variant}.target`, params.target) : undefined;
      return (
        x && { decay: defined({ kind: DECAYS[variant], x, target, scale: params?.scale, midpoint: params?.midpoint }) }
      );
    }
    default: {
      const name = UNARY.find((op) => op === variant);
      if (!name) {
        issues.add(path, `unknown expression ${variant}`);
        return undefined;
      }
      const inner = sub(name, e[name]);
      return inner && ({ [name]: inner } as Expression);
    }
  }
}

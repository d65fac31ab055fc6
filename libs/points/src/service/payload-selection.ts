import { JsonObject, setOwn } from '@vectorstore/common';
import { parsePath } from '../filter/payload-path';
import { NamedVectors } from '../model/vectors.model';
import { PayloadSelector, VectorSelector } from '../model/selectors.model';

/** The payload to return for a selector, or undefined when none is wanted. */
export function selectPayload(payload: JsonObject, selector: PayloadSelector): JsonObject | undefined {
  if ('enable' in selector) return selector.enable ? payload : undefined;
  if ('include' in selector) {
    const result: JsonObject = {};
    for (const key of selector.include) copyPath(payload, result, key);
    return result;
  }
  const result = structuredClone(payload);
  for (const key of selector.exclude) removePath(result, key);
  return result;
}

/** The vector names to return for a selector, or undefined when none are wanted. */
export function selectedVectorNames(selector: VectorSelector): readonly string[] | 'all' | undefined {
  if ('enable' in selector) return selector.enable ? 'all' : undefined;
  return selector.include;
}

export function selectVectors(vectors: NamedVectors, selector: VectorSelector): NamedVectors | undefined {
  const names = selectedVectorNames(selector);
  if (names === undefined) return undefined;
  if (names === 'all') return vectors;
  const result: NamedVectors = {};
  for (const name of names) if (vectors[name]) result[name] = vectors[name];
  return result;
}

function objectKeys(key: string): string[] | undefined {
  const segments = parsePath(key);
  return segments.every((s) => s.kind === 'key') ? segments.map((s) => (s as { key: string }).key) : undefined;
}

function copyPath(source: JsonObject, target: JsonObject, key: string): void {
  const keys = objectKeys(key);
  if (!keys) return;
  let from: unknown = source;
  let to = target;
  for (let i = 0; i < keys.length; i++) {
    if (typeof from !== 'object' || from === null || Array.isArray(from) || !Object.hasOwn(from, keys[i])) return;
    from = (from as JsonObject)[keys[i]];
    if (i === keys.length - 1) setOwn(to, keys[i], from as JsonObject);
    else {
      if (!Object.hasOwn(to, keys[i])) setOwn(to, keys[i], {});
      to = to[keys[i]] as JsonObject;
    }
  }
}

function removePath(target: JsonObject, key: string): void {
  const keys = objectKeys(key);
  if (!keys) return;
  let node: unknown = target;
  for (let i = 0; i < keys.length - 1; i++) {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return;
    node = (node as JsonObject)[keys[i]];
  }
  if (typeof node === 'object' && node !== null && !Array.isArray(node))
    delete (node as JsonObject)[keys[keys.length - 1]];
}

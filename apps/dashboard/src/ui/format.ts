import type { Json } from '../api/types';

/** The first few components of a vector (or of each named vector), with its length. */
export function vectorSummary(vector: Json | undefined, shown = 4): string {
  if (vector === undefined || vector === null) return '—';
  if (Array.isArray(vector)) {
    if (vector.length > 0 && Array.isArray(vector[0])) return `[${vector.length} vectors]`;
    const head = vector.slice(0, shown).map((x) => (typeof x === 'number' ? Number(x.toFixed(4)) : x));
    return `[${head.join(', ')}${vector.length > shown ? ', …' : ''}] (${vector.length} dims)`;
  }
  if (typeof vector === 'object') {
    return Object.entries(vector)
      .map(([name, value]) =>
        value && typeof value === 'object' && !Array.isArray(value) && 'indices' in value
          ? `${name}: sparse (${Array.isArray(value.indices) ? value.indices.length : 0} values)`
          : `${name}: ${vectorSummary(value, shown)}`,
      )
      .join('\n');
  }
  return String(vector);
}

/**
 * Where a server validation message belongs: the first field whose API name it mentions (`vectors.size: …`,
 * `collection_name: …`), else the form as a whole.
 */
export function fieldOfMessage(message: string, fields: Record<string, string[]>): string | undefined {
  for (const [field, names] of Object.entries(fields)) {
    if (names.some((name) => message.includes(name))) return field;
  }
  return undefined;
}

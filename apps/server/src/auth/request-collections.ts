// Which collections a request acts on, for per-collection access (Qdrant's JWT RBAC): the collection it names, and
// the collections its lookups read from (`lookup_from`, `with_lookup`), as Qdrant's `check_lookup_from` and
// `check_with_lookup` do. Shapes only: the rules are libs/auth's.

/** Keys naming a collection, in the gRPC (camelCase) and REST (snake_case) shapes. */
const NAME_KEYS = new Set(['collectionName', 'collection_name']);
/** Objects whose `collection` (or that are themselves, as a string) name a collection a request reads from. */
const LOOKUP_KEYS = new Set(['lookupFrom', 'lookup_from', 'withLookup', 'with_lookup']);
/** How deep to look: batch requests nest their requests one level down, prefetches a few more. */
const MAX_DEPTH = 8;

/** The collection names in a request message or body (deduplicated, in order of appearance). */
export function collectionsNamedIn(request: unknown): string[] {
  const names = new Set<string>();
  visit(request, 0, names);
  return [...names];
}

function visit(value: unknown, depth: number, names: Set<string>): void {
  if (depth > MAX_DEPTH || typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) visit(item, depth + 1, names);
    return;
  }
  for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
    if (NAME_KEYS.has(key) && typeof field === 'string' && field !== '') names.add(field);
    else if (LOOKUP_KEYS.has(key)) {
      if (typeof field === 'string' && field !== '') names.add(field);
      else if (typeof field === 'object' && field !== null) {
        const collection =
          (field as Record<string, unknown>).collection ?? (field as Record<string, unknown>).collectionName;
        if (typeof collection === 'string' && collection !== '') names.add(collection);
      }
    } else if (typeof field === 'object' && field !== null && !ArrayBuffer.isView(field))
      visit(field, depth + 1, names);
  }
}

// Which collections a request acts on, for per-collection access (Qdrant's JWT RBAC): the collection it names, and
// the collections its lookups read from (`lookup_from`, `with_lookup`), as Qdrant's `check_lookup_from` and
// `check_with_lookup` do. Shapes only: the rules are libs/auth's.

/** Keys naming a collection, in the gRPC (camelCase) and REST (snake_case) shapes. */
const NAME_KEYS = new Set(['collectionName', 'collection_name']);
/** Objects whose `collection` (or that are themselves, as a string) name a collection a request reads from. */
const LOOKUP_KEYS = new Set(['lookupFrom', 'lookup_from', 'withLookup', 'with_lookup']);

/**
 * The collection names in a request message or body (deduplicated, in order of appearance). The whole request is
 * walked, however deep: a lookup may sit in a prefetch many levels down (the query engine takes 16), and one left
 * unseen would read a collection without a grant. Iterative, so a deeply nested body cannot overflow the stack.
 */
export function collectionsNamedIn(request: unknown): string[] {
  const names = new Set<string>();
  const pending: unknown[] = [request];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value !== 'object' || value === null || ArrayBuffer.isView(value)) continue;
    if (Array.isArray(value)) {
      // Only objects can name a collection: a vector's numbers are not queued.
      for (let i = value.length - 1; i >= 0; i--) if (typeof value[i] === 'object') pending.push(value[i]);
      continue;
    }
    const found: unknown[] = [];
    for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
      if (NAME_KEYS.has(key) && typeof field === 'string' && field !== '') names.add(field);
      else if (LOOKUP_KEYS.has(key)) {
        if (typeof field === 'string' && field !== '') names.add(field);
        else if (typeof field === 'object' && field !== null) {
          const collection =
            (field as Record<string, unknown>).collection ?? (field as Record<string, unknown>).collectionName;
          if (typeof collection === 'string' && collection !== '') names.add(collection);
        }
      } else if (typeof field === 'object' && field !== null) found.push(field);
    }
    for (let i = found.length - 1; i >= 0; i--) pending.push(found[i]);
  }
  return [...names];
}

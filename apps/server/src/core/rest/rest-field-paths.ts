/**
 * The domain names fields as gRPC does (`vectors_config.params.size`); REST names them after its
 * own JSON (`vectors.size`). These rewrites translate the path at the front of a `path: rule` issue.
 */
const REWRITES: Array<[RegExp, string]> = [
  [/^vectors_config\.params\./, 'vectors.'],
  [/^vectors_config\.params_map\.map\./, 'vectors.'],
  [/^vectors_config\./, 'vectors.'],
  [/^sparse_vectors_config\.map\./, 'sparse_vectors.'],
  [/^sparse_vectors_config\./, 'sparse_vectors.'],
  [/^dense_config\./, 'dense.'],
  [/^sparse_config\./, 'sparse.'],
  [/^field_index_params\.\w+?_index_params\./, 'field_schema.'],
  // A point's vectors are `vectors` in gRPC's PointVectors, `vector` in REST's.
  [/^((?:operations\[\d+\]\.update_vectors\.)?points\[\d+\])\.vectors(?=: )/, '$1.vector'],
];

export function restIssuePath(issue: string): string {
  for (const [pattern, replacement] of REWRITES) {
    if (pattern.test(issue)) return issue.replace(pattern, replacement);
  }
  return issue;
}

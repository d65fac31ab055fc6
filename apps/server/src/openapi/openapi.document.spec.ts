import { FEATURE_MODULES } from '../features';
import { probeBody } from './body-probe';
import { openApiDocument, routesOf } from './openapi.document';
import { REQUEST_BODIES } from './request-bodies';
import { MODULE_METADATA } from '@nestjs/common/constants';
import type { Type } from '@nestjs/common';
import { scrollFromRest } from '../points/rest/points-read.rest-mapper';
import { queryFromRest } from '../points/rest/query.rest-mapper';

type Doc = { paths: Record<string, Record<string, Record<string, unknown>>> };
const controllersOf = (module: Type<unknown>): Type<unknown>[] =>
  (Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, module) ?? []) as Type<unknown>[];
const ROUTES = routesOf(FEATURE_MODULES.flatMap(controllersOf));
const DOC = openApiDocument(ROUTES, '1.19.0') as unknown as Doc;
const bodyOf = (path: string, method: string): { properties: Record<string, unknown>; required?: string[] } =>
  (DOC.paths[path][method].requestBody as { content: Record<string, { schema: never }> }).content['application/json']
    .schema;

describe('openApiDocument', () => {
  it('should describe every route of the app with its path parameters and access', () => {
    const described = Object.entries(DOC.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`),
    );
    // Routes taking every verb (the dashboard's 404 catch-alls) are not API operations: the document leaves them out.
    const expected = ROUTES.filter((r) => r.method !== 'ALL').map(
      (r) => `${r.method} ${r.pattern.replace(/:(\w+)/g, '{$1}')}`,
    );
    expect(new Set(described)).toEqual(new Set(expected));
    expect(described).toContain('POST /collections/{collection_name}/points/query');
    expect(DOC.paths['/collections/{collection_name}/points/query'].post).toMatchObject({
      operationId: 'Points/Query',
      'x-access': 'read',
      parameters: [{ name: 'collection_name', in: 'path', required: true }],
    });
    expect(DOC.paths['/collections/{collection_name}'].put['x-access']).toBe('manage');
    expect(DOC.paths['/openapi.json'].get['x-access']).toBe('public');
  });

  it("should list the query body's fields with the types its decoder accepts", () => {
    const query = bodyOf('/collections/{collection_name}/points/query', 'post');
    expect(Object.keys(query.properties)).toEqual(
      expect.arrayContaining(['prefetch', 'query', 'using', 'filter', 'params', 'score_threshold', 'limit', 'offset']),
    );
    expect(query.properties.limit).toEqual({ type: 'integer' });
    expect(query.properties.score_threshold).toEqual({ type: 'number' });
    expect(query.properties.using).toEqual({ type: 'string' });
    expect(query.properties.filter).toMatchObject({
      type: 'object',
      properties: { must: expect.anything() as unknown, should: expect.anything() as unknown },
    });
    // A point id, a vector, or one of the query objects: `{}` is no variant, yet the object alternative is kept.
    const variants = (query.properties.query as { oneOf: { type: string; properties?: object }[] }).oneOf;
    expect(variants.map((v) => v.type)).toEqual(expect.arrayContaining(['integer', 'array', 'object']));
    // One level down: the search parameters and their types.
    expect(query.properties.params).toMatchObject({
      type: 'object',
      properties: { hnsw_ef: { type: 'integer' }, exact: { type: 'boolean' } },
    });
    expect(query.required).toBeUndefined();
  });

  it('should find required fields from the decoders\' "missing field" errors', () => {
    expect(bodyOf('/collections/{collection_name}/points', 'post').required).toEqual(['ids']);
    expect(bodyOf('/collections/{collection_name}/facet', 'post').required).toEqual(['key']);
    const update = bodyOf('/collections/{collection_name}', 'patch');
    expect(Object.keys(update.properties)).toEqual(
      expect.arrayContaining(['hnsw_config', 'optimizers_config', 'quantization_config', 'strict_mode_config']),
    );
    expect(update.properties.hnsw_config).toMatchObject({
      type: 'object',
      properties: { m: { type: 'integer' }, ef_construct: { type: 'integer' }, on_disk: { type: 'boolean' } },
    });
  });

  it('should give every body decoder an operation the app serves', () => {
    const operations = new Set(ROUTES.map((r) => r.operation));
    for (const operation of Object.keys(REQUEST_BODIES)) expect(operations).toContain(operation);
  });

  it('should learn fields only from what a decoder reads', () => {
    expect(probeBody((body) => scrollFromRest(body, {})).fields.map(([f]) => f)).toEqual(
      expect.arrayContaining(['filter', 'offset', 'limit', 'with_payload', 'with_vector', 'order_by']),
    );
    const fields = probeBody((body) => queryFromRest(body)).fields.map(([f]) => f);
    expect(fields).not.toContain('ids');
  });
});

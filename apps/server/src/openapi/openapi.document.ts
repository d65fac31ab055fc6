import { RequestMethod, type Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import {
  globalLevelNeeded,
  IS_PUBLIC_KEY,
  OPERATION_ACCESS,
  OPERATION_KEY,
  type OperationName,
} from '@vectorstore/auth';
import { probeBody } from './body-probe';
import { REQUEST_BODIES } from './request-bodies';

/** One HTTP route of the app, as its controller declares it. */
export interface RouteInfo {
  method: string;
  /** Express pattern: `/collections/:collection_name/points`. */
  pattern: string;
  operation?: OperationName;
  isPublic: boolean;
}

/** Where the description is served (docs/dashboard.md, "API description"). */
export const OPENAPI_PATH = '/openapi.json';

function joinPath(...parts: string[]): string {
  return `/${parts.filter((p) => p !== '' && p !== '/').join('/')}`.replace(/\/+/g, '/');
}

/** The HTTP routes of `controllers`, read from the metadata Nest routes by (gRPC handlers have none). */
export function routesOf(controllers: Type<unknown>[]): RouteInfo[] {
  const routes: RouteInfo[] = [];
  for (const controller of controllers) {
    const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
    const prototype = controller.prototype as Record<string, object>;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const handler = prototype[name];
      if (name === 'constructor' || typeof handler !== 'function' || !Reflect.hasMetadata(METHOD_METADATA, handler))
        continue;
      routes.push({
        method: RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number],
        pattern: joinPath(base, String(Reflect.getMetadata(PATH_METADATA, handler) ?? '')),
        operation: Reflect.getMetadata(OPERATION_KEY, handler) as OperationName | undefined,
        isPublic: Boolean(
          Reflect.getMetadata(IS_PUBLIC_KEY, handler) ?? Reflect.getMetadata(IS_PUBLIC_KEY, controller),
        ),
      });
    }
  }
  return routes;
}

type Schema = Record<string, unknown>;

function bodySchema(operation: OperationName | undefined): Schema | undefined {
  const read = operation ? REQUEST_BODIES[operation] : undefined;
  if (!read) return undefined;
  const { fields, required, nested } = probeBody(read);
  const typed = (types: string[]): Schema =>
    types.length === 1 ? { type: types[0] } : types.length > 1 ? { oneOf: types.map((type) => ({ type })) } : {};
  const properties: Record<string, Schema> = {};
  for (const [field, types] of fields) {
    const inner = nested[field];
    properties[field] = typed(types);
    if (inner) {
      // The object alternative gets the fields its decoder reads.
      const object = { type: 'object', properties: Object.fromEntries(inner.map(([sub, t]) => [sub, typed(t)])) };
      properties[field] =
        types.length === 1 ? object : { oneOf: types.map((type) => (type === 'object' ? object : { type })) };
    }
  }
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

/**
 * An OpenAPI 3 description of `routes`: every path and method with its path parameters, the operation and the access
 * it needs (`x-access`: `read`, `manage`, or `public`), and a JSON request body whose top-level fields and types are
 * learnt from the REST decoder the route reads it with. Generated at run time from the code, never a copied file.
 */
export function openApiDocument(routes: RouteInfo[], version: string): Schema {
  const paths: Record<string, Record<string, Schema>> = {};
  for (const route of routes) {
    const method = route.method.toLowerCase();
    if (method === 'all' || method === 'options' || method === 'head') continue;
    const path = route.pattern.replace(/:(\w+)/g, '{$1}');
    const parameters = [...route.pattern.matchAll(/:(\w+)/g)].map(([, name]) => ({
      name,
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    const schema = ['post', 'put', 'patch'].includes(method) ? bodySchema(route.operation) : undefined;
    (paths[path] ??= {})[method] = {
      ...(route.operation ? { operationId: route.operation } : {}),
      'x-access': route.isPublic || !route.operation ? 'public' : globalLevelNeeded(OPERATION_ACCESS[route.operation]),
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(schema ? { requestBody: { content: { 'application/json': { schema } } } } : {}),
      responses: { default: { description: 'Qdrant’s envelope: {"result": …, "status": "ok", "time": seconds}' } },
    };
  }
  return {
    openapi: '3.0.3',
    info: {
      title: 'vectorstore REST API',
      version,
      description: 'Generated from the server’s route table and REST decoders (top-level body fields).',
    },
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
  };
}

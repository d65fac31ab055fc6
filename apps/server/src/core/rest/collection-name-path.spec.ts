import { Type } from '@nestjs/common';
import { METHOD_METADATA, MODULE_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { FEATURE_MODULES } from '../../features';
import { CollectionNamePathPipe } from './collection-name.param';

function controllersOf(module: Type<unknown>): Type<unknown>[] {
  const own = (Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, module) ?? []) as Type<unknown>[];
  const imported = (Reflect.getMetadata(MODULE_METADATA.IMPORTS, module) ?? []) as Type<unknown>[];
  return [...own, ...imported.filter((m) => typeof m === 'function').flatMap(controllersOf)];
}

/** HTTP routes of a controller (class prefix + method path, method name), none for a gRPC-only controller. */
function routesOf(controller: Type<unknown>): Array<{ path: string; method: string }> {
  const prefix = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
  const prototype = controller.prototype as Record<string, object>;
  return Object.getOwnPropertyNames(prototype)
    .filter((name) => typeof prototype[name] === 'function' && Reflect.hasMetadata(METHOD_METADATA, prototype[name]))
    .map((name) => ({
      path: `${prefix}/${String(Reflect.getMetadata(PATH_METADATA, prototype[name]) ?? '')}`,
      method: name,
    }));
}

/** The pipes bound to a route's `collection_name` path parameter (none when it does not read it). */
function namePipesOf(controller: Type<unknown>, method: string): unknown[] {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, method) ?? {}) as Record<
    string,
    { data?: unknown; pipes?: unknown[] }
  >;
  return Object.values(args).flatMap((arg) => (arg.data === 'collection_name' ? (arg.pipes ?? []) : []));
}

const WITH_NAME = [...new Set(FEATURE_MODULES.flatMap(controllersOf))].flatMap((controller) =>
  routesOf(controller)
    .filter((route) => route.path.includes(':collection_name'))
    .map((route) => ({ controller, ...route })),
);

describe('the {collection_name} path check', () => {
  it('should find the routes with a collection in their path', () => {
    expect(WITH_NAME.length).toBeGreaterThan(40);
  });

  it.each(WITH_NAME.map((r) => [`${r.controller.name}.${r.method} (${r.path})`, r] as const))(
    '%s should read the name through CollectionNamePathPipe',
    (_, route) => {
      expect(namePipesOf(route.controller, route.method)).toContain(CollectionNamePathPipe);
    },
  );
});

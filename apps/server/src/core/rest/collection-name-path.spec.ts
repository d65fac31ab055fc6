import { Type } from '@nestjs/common';
import { METHOD_METADATA, MODULE_METADATA, PATH_METADATA, PIPES_METADATA } from '@nestjs/common/constants';
import { FEATURE_MODULES } from '../../features';
import { CollectionNamePathPipe } from './collection-name.param';

function controllersOf(module: Type<unknown>): Type<unknown>[] {
  const own = (Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, module) ?? []) as Type<unknown>[];
  const imported = (Reflect.getMetadata(MODULE_METADATA.IMPORTS, module) ?? []) as Type<unknown>[];
  return [...own, ...imported.filter((m) => typeof m === 'function').flatMap(controllersOf)];
}

/** HTTP route paths of a controller (class prefix + method path), empty for a gRPC-only controller. */
function routesOf(controller: Type<unknown>): string[] {
  const prefix = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
  const prototype = controller.prototype as Record<string, unknown>;
  return Object.getOwnPropertyNames(prototype)
    .map((name) => prototype[name])
    .filter((fn): fn is object => typeof fn === 'function' && Reflect.hasMetadata(METHOD_METADATA, fn))
    .map((fn) => `${prefix}/${String(Reflect.getMetadata(PATH_METADATA, fn) ?? '')}`);
}

const WITH_NAME = [...new Set(FEATURE_MODULES.flatMap(controllersOf))].filter((c) =>
  routesOf(c).some((route) => route.includes(':collection_name')),
);

describe('the {collection_name} path check', () => {
  it('should find the controllers with a collection in their path', () => {
    expect(WITH_NAME.length).toBeGreaterThan(5);
  });

  it.each(WITH_NAME.map((c) => [c.name, c] as const))('%s should bind CollectionNamePathPipe', (_, controller) => {
    const pipes = (Reflect.getMetadata(PIPES_METADATA, controller) ?? []) as unknown[];
    expect(pipes).toContain(CollectionNamePathPipe);
  });
});

import { Type } from '@nestjs/common';
import { METHOD_METADATA, MODULE_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { PATTERN_METADATA } from '@nestjs/microservices/constants';
import { IS_PUBLIC_KEY, isOperationName, OPERATION_KEY } from '@vectorstore/auth';
import { FEATURE_MODULES } from '../features';

interface Handler {
  label: string;
  grpc?: string;
  isPublic: boolean;
  operation: unknown;
}

function controllersOf(module: Type<unknown>): Type<unknown>[] {
  const own = (Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, module) ?? []) as Type<unknown>[];
  const imported = (Reflect.getMetadata(MODULE_METADATA.IMPORTS, module) ?? []) as Type<unknown>[];
  return [...own, ...imported.filter((m) => typeof m === 'function').flatMap(controllersOf)];
}

function handlersOf(controller: Type<unknown>): Handler[] {
  const prototype = controller.prototype as Record<string, unknown>;
  return Object.getOwnPropertyNames(prototype)
    .filter((name) => name !== 'constructor' && typeof prototype[name] === 'function')
    .map((name) => prototype[name] as object)
    .filter((fn) => Reflect.hasMetadata(PATTERN_METADATA, fn) || Reflect.hasMetadata(METHOD_METADATA, fn))
    .map((fn) => {
      const patterns = (Reflect.getMetadata(PATTERN_METADATA, fn) ?? []) as Array<{ service?: string; rpc?: string }>;
      const grpc = patterns[0]?.service ? `${patterns[0].service}/${patterns[0].rpc}` : undefined;
      const path = Reflect.getMetadata(PATH_METADATA, fn) as string | undefined;
      return {
        label: `${controller.name}.${(fn as { name: string }).name} (${grpc ?? `HTTP ${path}`})`,
        grpc,
        isPublic: Boolean(Reflect.getMetadata(IS_PUBLIC_KEY, fn) ?? Reflect.getMetadata(IS_PUBLIC_KEY, controller)),
        operation: Reflect.getMetadata(OPERATION_KEY, fn),
      };
    });
}

const HANDLERS = FEATURE_MODULES.flatMap(controllersOf).flatMap(handlersOf);

describe('operation declarations', () => {
  it('should find the handlers of every transport', () => {
    expect(HANDLERS.some((h) => h.grpc)).toBe(true);
    expect(HANDLERS.some((h) => !h.grpc)).toBe(true);
  });

  it.each(HANDLERS.map((h) => [h.label, h] as const))('%s should be public or declare a known operation', (_, h) => {
    expect(h.isPublic || isOperationName(h.operation)).toBe(true);
  });

  it('should give each gRPC handler the operation named after its method', () => {
    for (const h of HANDLERS.filter((handler) => handler.grpc && !handler.isPublic)) {
      expect([h.label, h.operation]).toEqual([h.label, h.grpc]);
    }
  });
});

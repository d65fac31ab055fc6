import { RequestMethod, Type } from '@nestjs/common';
import { METHOD_METADATA, MODULE_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { globalLevelNeeded, IS_PUBLIC_KEY, OPERATION_ACCESS, OPERATION_KEY, OperationName } from '@vectorstore/auth';
import { FEATURE_MODULES } from '../../../apps/server/src/features';

export interface RestRoute {
  method: string;
  /** With path parameters filled in (`/collections/c/index/f`). */
  path: string;
  pattern: string;
  isPublic: boolean;
  operation?: OperationName;
  access?: 'read' | 'manage';
}

function controllersOf(module: Type<unknown>): Type<unknown>[] {
  const own = (Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, module) ?? []) as Type<unknown>[];
  const imported = (Reflect.getMetadata(MODULE_METADATA.IMPORTS, module) ?? []) as Type<unknown>[];
  return [...own, ...imported.filter((m) => typeof m === 'function').flatMap(controllersOf)];
}

function joinPath(...parts: string[]): string {
  const joined = `/${parts.filter((p) => p !== '' && p !== '/').join('/')}`;
  return joined.replace(/\/+/g, '/');
}

/**
 * Every HTTP route the app serves, read from its controllers, with the operation each declares:
 * tests derive the access matrix from the same table the guards read.
 */
export function restRoutes(fill: (param: string) => string = () => 'x'): RestRoute[] {
  const routes: RestRoute[] = [];
  for (const controller of FEATURE_MODULES.flatMap(controllersOf)) {
    const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
    const prototype = controller.prototype as Record<string, object>;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const handler = prototype[name];
      if (name === 'constructor' || !Reflect.hasMetadata(METHOD_METADATA, handler)) continue;
      const pattern = joinPath(base, String(Reflect.getMetadata(PATH_METADATA, handler) ?? ''));
      const operation = Reflect.getMetadata(OPERATION_KEY, handler) as OperationName | undefined;
      routes.push({
        method: RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number],
        path: pattern.replace(/:(\w+)/g, (_, param: string) => fill(param)),
        pattern,
        isPublic: Boolean(
          Reflect.getMetadata(IS_PUBLIC_KEY, handler) ?? Reflect.getMetadata(IS_PUBLIC_KEY, controller),
        ),
        operation,
        access: operation ? globalLevelNeeded(OPERATION_ACCESS[operation]) : undefined,
      });
    }
  }
  return routes;
}

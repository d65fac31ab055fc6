// Review of issue 27: the points routes now register first (features.ts, points-feature.module.ts). Express tries
// routes in registration order, so a reordering may only ever be faster: every method and path must still reach the
// handler it reached before. This spec builds Express's router from the controllers' metadata in both orders and asks
// it which handler a path reaches, for every path that could match two routes at once.
import { Type } from '@nestjs/common';
import { METHOD_METADATA, MODULE_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common/enums/request-method.enum';
import { Router } from 'express';
import { AliasesFeatureModule } from '../../aliases/aliases-feature.module';
import { AuthFeatureModule } from '../../auth/auth-feature.module';
import { ClusterFeatureModule } from '../../cluster/cluster-feature.module';
import { CollectionsFeatureModule } from '../../collections/collections-feature.module';
import { DashboardFeatureModule } from '../../dashboard/dashboard-feature.module';
import { FEATURE_MODULES } from '../../features';
import { HealthFeatureModule } from '../../health/health-feature.module';
import { OpenApiFeatureModule } from '../../openapi/openapi-feature.module';
import { PointsFeatureModule } from '../../points/points-feature.module';
import { PointsGrpcController } from '../../points/points.grpc.controller';
import { PointsQueryHttpController } from '../../points/points-query.http.controller';
import { PointsReadHttpController } from '../../points/points-read.http.controller';
import { PointsSearchHttpController } from '../../points/points-search.http.controller';
import { PointsWriteHttpController } from '../../points/points-write.http.controller';
import { SnapshotsFeatureModule } from '../../snapshots/snapshots-feature.module';

/** The order before ec726e1 (features.ts and points-feature.module.ts at ec726e1^), with modules added since last. */
const OLD_FEATURE_MODULES = [
  AuthFeatureModule,
  HealthFeatureModule,
  CollectionsFeatureModule,
  AliasesFeatureModule,
  ClusterFeatureModule,
  PointsFeatureModule,
  SnapshotsFeatureModule,
  DashboardFeatureModule,
  OpenApiFeatureModule,
];
const OLD_POINTS_CONTROLLERS = [
  PointsGrpcController,
  PointsWriteHttpController,
  PointsQueryHttpController,
  PointsSearchHttpController,
  PointsReadHttpController,
];

type ModuleLike = Type<unknown> | { module: Type<unknown>; imports?: unknown[]; controllers?: Type<unknown>[] };

/** Controllers in the order Nest registers their routes: modules depth-first as its scanner inserts them. */
function controllersInOrder(
  modules: ModuleLike[],
  controllersOverride = new Map<unknown, Type<unknown>[]>(),
): Type<unknown>[] {
  const seen = new Set<unknown>();
  const out: Type<unknown>[] = [];
  const visit = (entry: ModuleLike): void => {
    const type = typeof entry === 'function' ? entry : entry.module;
    if (seen.has(type)) return;
    seen.add(type);
    const dynamic = typeof entry === 'function' ? undefined : entry;
    out.push(
      ...(controllersOverride.get(type) ?? [
        ...((Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, type) ?? []) as Type<unknown>[]),
        ...(dynamic?.controllers ?? []),
      ]),
    );
    const imports = [
      ...((Reflect.getMetadata(MODULE_METADATA.IMPORTS, type) ?? []) as unknown[]),
      ...(dynamic?.imports ?? []),
    ];
    for (const imported of imports) {
      if (typeof imported === 'function' || (typeof imported === 'object' && imported !== null && 'module' in imported))
        visit(imported as ModuleLike);
    }
  };
  modules.forEach(visit);
  return out;
}

interface Route {
  id: string;
  method: string;
  path: string;
}

const join = (...parts: string[]): string => {
  const path = ('/' + parts.filter((p) => p !== '').join('/')).replace(/\/{2,}/g, '/');
  return path !== '/' ? path.replace(/\/$/, '') : path;
};

/** HTTP routes of the controllers, in registration order, with Nest's path joining. */
function routesOf(controllers: Type<unknown>[]): Route[] {
  return controllers.flatMap((controller) => {
    const prefix = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
    const prototype = controller.prototype as Record<string, unknown>;
    return Object.getOwnPropertyNames(prototype).flatMap((name) => {
      const handler = Object.getOwnPropertyDescriptor(prototype, name)?.value as unknown;
      if (typeof handler !== 'function' || !Reflect.hasMetadata(METHOD_METADATA, handler)) return [];
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number].toLowerCase();
      const paths = [Reflect.getMetadata(PATH_METADATA, handler) as string | string[]].flat();
      return paths.map((path) => ({ id: `${controller.name}.${name}`, method, path: join(prefix, path ?? '') }));
    });
  });
}

type Dispatch = (method: string, path: string) => Promise<string | undefined>;

/**
 * Express's router over the routes: every route's handler a request would reach, in order (each handler passes the
 * request on, so the first one is the handler that answers it).
 */
function allMatches(routes: Route[]): (method: string, path: string) => Promise<string[]> {
  const router = Router();
  const registered = router as unknown as Record<string, (path: string, handler: RouteHandler) => void>;
  type RouteHandler = (req: { reached: string[] }, res: unknown, next: () => void) => void;
  for (const route of routes) {
    registered[route.method](route.path, (req, _res, next) => {
      req.reached.push(route.id);
      next();
    });
  }
  return (method, path) =>
    new Promise((resolve, reject) => {
      const req = { method: method.toUpperCase(), url: path, headers: {}, reached: [] as string[] };
      (router as unknown as { handle: (req: unknown, res: unknown, done: (e?: unknown) => void) => void }).handle(
        req,
        {},
        (error?: unknown) => (error ? reject(error as Error) : resolve(req.reached)),
      );
    });
}

/** Which route's handler answers a request (undefined: none). */
function expressRouter(routes: Route[]): Dispatch {
  const matches = allMatches(routes);
  return async (method, path) => (await matches(method, path))[0];
}

const segments = (path: string): string[] => path.split('/').filter((s) => s !== '');

/**
 * Concrete paths for a route: each `:param` filled with `x` or with a literal some other route of as many segments
 * has at that position. Patterns here have no wildcards or optional parts, so any path two routes both match is
 * (up to the values of positions where both have a parameter) one of these.
 */
function samplePaths(route: Route, all: Route[]): string[] {
  const own = segments(route.path);
  const others = all.map((r) => segments(r.path)).filter((s) => s.length === own.length);
  let paths: string[][] = [[]];
  own.forEach((segment, k) => {
    const choices = segment.startsWith(':')
      ? [...new Set(['x', ...others.map((s) => s[k]).filter((s) => !s.startsWith(':'))])]
      : [segment];
    paths = paths.flatMap((prefix) => choices.map((choice) => [...prefix, choice]));
  });
  return paths.map((p) => '/' + p.join('/'));
}

const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete'];

describe('issue 27 review: route order', () => {
  const newRoutes = routesOf(controllersInOrder(FEATURE_MODULES));
  const oldRoutes = routesOf(
    controllersInOrder(OLD_FEATURE_MODULES, new Map([[PointsFeatureModule, OLD_POINTS_CONTROLLERS]])),
  );

  it('should register the same routes in both orders, the points routes first now', () => {
    expect(newRoutes.length).toBeGreaterThan(80);
    const key = (r: Route): string => `${r.method} ${r.path} ${r.id}`;
    expect(newRoutes.map(key).sort()).toEqual(oldRoutes.map(key).sort());
    expect(newRoutes[0].id).toBe('PointsQueryHttpController.query');
    expect(oldRoutes[0].id).not.toMatch(/^Points/);
  });

  it('should send every method and path that could match two routes to the same handler as before', async () => {
    const before = expressRouter(oldRoutes);
    const after = expressRouter(newRoutes);
    const paths = [...new Set(newRoutes.flatMap((route) => samplePaths(route, newRoutes)))];
    expect(paths.length).toBeGreaterThan(100);
    const changed: string[] = [];
    for (const path of paths) {
      for (const casing of [path, path.toUpperCase(), `${path}/`]) {
        for (const method of METHODS) {
          const [was, is] = [await before(method, casing), await after(method, casing)];
          if (was !== is) changed.push(`${method} ${casing}: ${String(was)} -> ${String(is)}`);
        }
      }
    }
    expect(changed).toEqual([]);
  });

  it('should leave no route shadowed: its own plain path reaches it', async () => {
    const after = expressRouter(newRoutes);
    const unreachable: string[] = [];
    for (const route of newRoutes) {
      const path = route.path.replace(/:\w+/g, 'x');
      const reached = await after(route.method, path);
      if (reached !== route.id) unreachable.push(`${route.method} ${route.path} (${route.id}) -> ${String(reached)}`);
    }
    expect(unreachable).toEqual([]);
  });

  // Stronger than the comparison above: no two routes of one method share a path, so no order of registration can
  // change which handler answers (a later reordering stays safe too).
  it('should have no two routes of one method that match one path', async () => {
    const matches = allMatches(newRoutes);
    const paths = [...new Set(newRoutes.flatMap((route) => samplePaths(route, newRoutes)))];
    const shared: string[] = [];
    for (const path of paths) {
      for (const method of METHODS) {
        const reached = await matches(method, path);
        if (reached.length > 1) shared.push(`${method} ${path}: ${reached.join(', ')}`);
      }
    }
    expect(shared).toEqual([]);
  });
});

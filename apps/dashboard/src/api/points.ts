import { request } from './http';
import type { Json, Point, PointId } from './types';

/** Point reads and writes of one collection (Qdrant's `/collections/{c}/points/…` routes). */
const base = (collection: string): string => `/collections/${encodeURIComponent(collection)}/points`;

export const getPoint = (collection: string, id: PointId | string): Promise<Point> =>
  request<Point>('GET', `${base(collection)}/${encodeURIComponent(String(id))}`);

/** How many points match `filter`, counted exactly. */
export const countPoints = (collection: string, filter?: Json): Promise<number> =>
  request<{ count: number }>('POST', `${base(collection)}/count`, { filter, exact: true }).then((r) => r.count);

export const deletePoints = (collection: string, ids: PointId[]): Promise<unknown> =>
  request('POST', `${base(collection)}/delete?wait=true`, { points: ids });

/** Replaces a point's whole payload (`PUT …/points/payload`, Qdrant's overwrite). */
export const overwritePayload = (collection: string, id: PointId, payload: Json): Promise<unknown> =>
  request('PUT', `${base(collection)}/payload?wait=true`, { payload, points: [id] });

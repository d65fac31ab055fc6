import { parseJson, request } from './http';

/** A route of the server's API description (`GET /openapi.json`), as the console completes it. */
export interface ApiRoute {
  method: string;
  /** `/collections/{collection_name}/points/query`. */
  path: string;
  /** `read`, `manage` or `public`: what the route needs (the server decides; this only labels it). */
  access: string;
  /** Top-level body fields and their JSON types, in the order the server's decoder reads them. */
  fields: ApiField[];
  required: string[];
}

export interface ApiField {
  name: string;
  types: string[];
  /** The fields of its object form, when the description gives them (one level down). */
  fields?: ApiField[];
}

type Operation = {
  'x-access'?: string;
  requestBody?: {
    content?: Record<string, { schema?: { properties?: Record<string, Schema>; required?: string[] } }>;
  };
};
type Schema = { type?: string; oneOf?: Schema[]; properties?: Record<string, Schema> };

function fieldsOf(properties: Record<string, Schema> | undefined, depth: number): ApiField[] {
  return Object.entries(properties ?? {}).map(([name, s]) => {
    const object = s.type === 'object' ? s : s.oneOf?.find((o) => o.type === 'object');
    const field: ApiField = { name, types: s.type ? [s.type] : (s.oneOf ?? []).map((o) => o.type ?? 'any') };
    if (depth > 0 && object?.properties) field.fields = fieldsOf(object.properties, depth - 1);
    return field;
  });
}

/** The routes of an OpenAPI 3 document. */
export function routesOfDocument(document: unknown): ApiRoute[] {
  const paths = ((document ?? {}) as { paths?: Record<string, Record<string, Operation>> }).paths ?? {};
  return Object.entries(paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => {
      const schema = operation.requestBody?.content?.['application/json']?.schema;
      return {
        method: method.toUpperCase(),
        path,
        access: operation['x-access'] ?? 'read',
        fields: fieldsOf(schema?.properties, 1),
        required: schema?.required ?? [],
      };
    }),
  );
}

let loaded: Promise<ApiRoute[]> | undefined;

/** The server's API description, read once per page. */
export function loadApiRoutes(): Promise<ApiRoute[]> {
  loaded ??= request<string>('GET', '/openapi.json', undefined, { text: true }).then(
    (text) => routesOfDocument(parseJson(text)),
    (error: unknown) => {
      loaded = undefined;
      throw error;
    },
  );
  return loaded;
}

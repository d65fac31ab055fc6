// Issue 28 item 8: property-based requests against every REST route, read from the app's route table (a new route
// is fuzzed without a change here). Rule: a well-formed request with bad values never gets a 5xx or a stack trace,
// and the server answers afterwards. `npm test` runs a fixed seed; `npm run fuzz` a random one, printed.
import * as protobuf from 'protobufjs';
import { Rng } from '../support/seeded-random';
import {
  anyJson,
  caseRng,
  fuzzSettings,
  Json,
  jsonText,
  mutate,
  ODD_STRINGS,
  shrink,
  badScalar,
} from '../support/fuzz/json-arbitrary';
import { collectionName, protoMessage } from '../support/fuzz/proto-arbitrary';
import { qdrantBody, REST_FIELD_NAMES } from '../support/fuzz/rest-arbitrary';
import { ensureFuzzFixture, expectServerAnswers } from './support/fuzz-fixture';
import { loadProtoRoot } from './support/fuzz-protos';
import { RestRoute, restRoutes } from './support/rest-routes';
import { RunningServer, startServer } from './support/server-harness';

const { seed, runs } = fuzzSettings(12);
jest.setTimeout(60_000 + runs * 2_000);

/** Every route of the table; a route taking every verb (the dashboard's) is fuzzed with the usual ones. */
const ROUTES: RestRoute[] = restRoutes().flatMap((route) =>
  route.method === 'ALL' ? ['GET', 'POST', 'PUT', 'DELETE'].map((method) => ({ ...route, method })) : [route],
);

const REST_ROOT = loadProtoRoot('qdrant', true);

/** The gRPC request message of a route's operation (`Points/Query` → QueryPoints), when it has one. */
function requestTypeOf(route: RestRoute): protobuf.Type | undefined {
  const [service, method] = (route.operation ?? '').split('/');
  const found = REST_ROOT.lookup(`qdrant.${service}`);
  return found instanceof protobuf.Service ? (found.methods[method]?.resolvedRequestType ?? undefined) : undefined;
}

const QUERY_KEYS = [
  'wait',
  'timeout',
  'ordering',
  'consistency',
  'exact',
  'with_payload',
  'limit',
  'priority',
  'checksum',
  'wal',
  'force',
  'from',
];

/** A value for a path parameter: the fixture's names often, odd text otherwise. */
function pathParam(rng: Rng, param: string): string {
  const value = (() => {
    switch (param) {
      case 'collection_name':
        return collectionName(rng);
      case 'id':
        return rng.pick([
          '1',
          '2',
          '0',
          '-1',
          '1.5',
          '18446744073709551615',
          '18446744073709551616',
          '6f0f5b9a-1b1e-4c2f-9a8e-6c1e1f2a3b4c',
          'x',
        ]);
      case 'field_name':
        return rng.pick(['city', 'n', 'missing', 'a.b[]', ...ODD_STRINGS]);
      case 'shard_id':
      case 'peer_id':
        return rng.pick(['0', '1', '-1', '1.5', '4294967296', '99999999999999999999', 'x']);
      default:
        return rng.pick(ODD_STRINGS);
    }
  })();
  if (rng.bool(0.05)) return rng.pick(['%', '%zz', '%ED%A0%80', '%00', '%2F', '..', '%2e%2e']);
  return value === '' ? 'x' : percentEncoded(value);
}

/** Every byte but the unreserved ones as %XX (a lone surrogate becomes U+FFFD's bytes: encodeURIComponent throws). */
function percentEncoded(value: string): string {
  return [...Buffer.from(value, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9._~-]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).padStart(2, '0')}`,
    )
    .join('');
}

interface FuzzRequest {
  method: string;
  path: string;
  query: string;
  body?: Json;
}

function draw(rng: Rng, route: RestRoute): FuzzRequest {
  const path = route.pattern
    .replace(/:(\w+)/g, (_, param: string) => pathParam(rng, param))
    .replace(/\*\w+/g, () => rng.pick(['collections/fuzz', 'x.js', 'a/b/c', '%2e%2e/x', '%zz']));
  const query = rng.bool(0.3)
    ? '?' +
      Array.from(
        { length: rng.int(1, 2) },
        () => `${rng.pick(QUERY_KEYS)}=${percentEncoded(jsonText(badScalar(rng)))}`,
      ).join('&')
    : '';
  if (route.method === 'GET' || route.method === 'HEAD') return { method: route.method, path, query };
  const requestType = requestTypeOf(route);
  const preferred = requestType ? requestType.fieldsArray.map((field) => field.name) : [];
  const roll = rng.below(10);
  const badness = rng.pick([0.02, 0.1, 0.3]);
  // Mostly the route's own fields in Qdrant's REST shapes; now and then its gRPC message, any route's fields or
  // anything at all.
  let body: Json =
    roll < 7
      ? qdrantBody(rng, preferred, badness)
      : roll < 8 && requestType
        ? protoMessage(rng, requestType, { longsAsNumbers: true, badness })
        : roll < 9
          ? anyJson(rng, [...preferred, ...REST_FIELD_NAMES])
          : qdrantBody(rng, [], badness);
  if (rng.bool(0.15)) body = mutate(rng, body, (r) => anyJson(r, REST_FIELD_NAMES, 2));
  return { method: route.method, path, query, body };
}

/** Something a client should never see: an internal error's stack or type. */
const LEAK = /\bat \S+ \(|node_modules|TypeError|RangeError|ReferenceError|Cannot read prop/;

describe('REST fuzz: property-based requests against every route (e2e)', () => {
  let server: RunningServer;
  /** Answers per route and status, printed with FUZZ_STATS=1: a route that only ever answers 400 is fuzzed shallowly. */
  const tally = new Map<string, Map<number, number>>();

  beforeAll(async () => {
    console.log(`REST fuzz: seed ${seed} (FUZZ_SEED=${seed} repeats it), ${runs} runs × ${ROUTES.length} routes`);
    server = await startServer();
    await ensureFuzzFixture(server);
  });

  afterAll(async () => {
    if (process.env.FUZZ_STATS) {
      const lines = [...tally].map(
        ([label, codes]) => `${label}: ${[...codes].map(([c, n]) => `${c} ${n}`).join(', ')}`,
      );
      console.log(lines.join('\n'));
    }
    await server?.stop();
  });

  async function send(request: FuzzRequest): Promise<{ status: number; text: string }> {
    const response = await fetch(`${server.httpUrl}${request.path}${request.query}`, {
      method: request.method,
      headers: { 'api-key': server.apiKey, 'content-type': 'application/json' },
      body: request.body === undefined ? undefined : jsonText(request.body),
      signal: AbortSignal.timeout(30_000),
    });
    return { status: response.status, text: await response.text() };
  }

  const broken = (answer: { status: number; text: string }): boolean => answer.status >= 500 || LEAK.test(answer.text);

  it('should fuzz every route of the table', () => {
    expect(ROUTES.length).toBeGreaterThan(80);
    expect(ROUTES.filter((route) => requestTypeOf(route)).length).toBeGreaterThan(50);
  });

  it.each(ROUTES.map((route) => [`${route.method} ${route.pattern}`, route] as const))(
    '%s: never a 5xx or a stack trace for bad values, and the server answers afterwards',
    async (label, route) => {
      const rng = caseRng(seed, label);
      const failures: string[] = [];
      for (let run = 0; run < runs && failures.length < 3; run++) {
        if (run % 4 === 0) await ensureFuzzFixture(server);
        const request = draw(rng, route);
        const answer = await send(request);
        if (process.env.FUZZ_TRACE && label.includes(process.env.FUZZ_TRACE)) {
          console.log(
            `${label} ${request.query} ${request.body === undefined ? '' : jsonText(request.body).slice(0, 400)} -> ${answer.status} ${answer.text.slice(0, 200)}`,
          );
        }
        const codes = tally.get(label) ?? new Map<number, number>();
        tally.set(label, codes.set(answer.status, (codes.get(answer.status) ?? 0) + 1));
        if (!broken(answer)) continue;
        // Shrink the body to what still fails, so the report names the bad value.
        const body =
          request.body === undefined
            ? undefined
            : await shrink(request.body, async (candidate) => broken(await send({ ...request, body: candidate })));
        const last = body === undefined ? answer : await send({ ...request, body });
        failures.push(
          `${request.method} ${request.path}${request.query} ${body === undefined ? '' : jsonText(body).slice(0, 600)} -> ${last.status} ${last.text.slice(0, 300)}`,
        );
      }
      await expectServerAnswers(server);
      expect({ seed, failures }).toEqual({ seed, failures: [] });
    },
  );
});

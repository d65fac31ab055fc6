// Issue 28 item 8: property-based requests against every gRPC method of Collections, Points and Snapshots, in both
// packages (`vectorstore.*` and `qdrant.*`), read from the protos (a new method is fuzzed without a change here).
// Messages are well-formed (they encode) with bad values: empty or odd names, edge integers, NaN and infinities,
// unknown enum numbers, deep or empty oneofs. Rule: never INTERNAL, UNKNOWN or DATA_LOSS, never a stack trace in the
// details, and the server answers afterwards. `npm test` runs a fixed seed; `npm run fuzz` a random one, printed.
import * as grpc from '@grpc/grpc-js';
import { caseRng, fuzzSettings, Json, shrink } from '../support/fuzz/json-arbitrary';
import { protoMessage } from '../support/fuzz/proto-arbitrary';
import { ensureFuzzFixture, expectServerAnswers } from './support/fuzz-fixture';
import { FuzzedMethod, fuzzedMethods, loadProtoRoot } from './support/fuzz-protos';
import { createClient, credentials, ProtoPackage } from './support/grpc-clients';
import { RunningServer, startServer } from './support/server-harness';

const { seed, runs } = fuzzSettings(12);
jest.setTimeout(60_000 + runs * 2_000);

const PACKAGES: ProtoPackage[] = ['vectorstore', 'qdrant'];
const METHODS: FuzzedMethod[] = PACKAGES.flatMap((pkg) => fuzzedMethods(pkg, loadProtoRoot(pkg, false)));

/** Codes that say the server failed rather than the request: never the answer to a well-formed request. */
const SERVER_FAULT = new Set([
  grpc.status.INTERNAL,
  grpc.status.UNKNOWN,
  grpc.status.DATA_LOSS,
  grpc.status.UNAVAILABLE,
]);
const LEAK = /\bat \S+ \(|node_modules|TypeError|RangeError|ReferenceError|Cannot read prop/;

interface Outcome {
  code: number;
  details: string;
  /** grpc-js could not encode the drawn message: not a request at all, so nothing to judge. */
  unsent: boolean;
}

describe('gRPC fuzz: property-based requests against every method (e2e)', () => {
  let server: RunningServer;
  const clients = new Map<string, grpc.Client>();
  /** Answers per method and code, printed with FUZZ_STATS=1: a method that only ever fails validation is fuzzed shallowly. */
  const tally = new Map<string, Map<string, number>>();

  beforeAll(async () => {
    console.log(`gRPC fuzz: seed ${seed} (FUZZ_SEED=${seed} repeats it), ${runs} runs × ${METHODS.length} methods`);
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
    for (const client of clients.values()) client.close();
    await server?.stop();
  });

  function clientOf(method: FuzzedMethod): grpc.Client {
    const key = `${method.pkg}.${method.service}`;
    let client = clients.get(key);
    if (!client) {
      client = createClient(server.grpcAddress, key, credentials(server.apiKey), method.pkg);
      clients.set(key, client);
    }
    return client;
  }

  function call(method: FuzzedMethod, request: Json): Promise<Outcome> {
    const client = clientOf(method) as unknown as Record<
      string,
      (req: Json, options: grpc.CallOptions, cb: (error: grpc.ServiceError | null) => void) => void
    >;
    return new Promise((resolve) => {
      client[method.method](request, { deadline: Date.now() + 30_000 }, (error) =>
        resolve({
          code: error?.code ?? grpc.status.OK,
          details: error?.details ?? '',
          unsent: Boolean(error?.details?.startsWith('Request message serialization failure')),
        }),
      );
    });
  }

  const broken = (outcome: Outcome): boolean =>
    !outcome.unsent && (SERVER_FAULT.has(outcome.code) || LEAK.test(outcome.details));

  it('should fuzz every method of the three services in both packages', () => {
    expect(METHODS.length).toBe(100);
    expect(METHODS.filter((m) => m.pkg === 'qdrant' && m.service === 'Points').map((m) => m.method)).toContain('Query');
  });

  it.each(METHODS.map((method) => [`${method.pkg}.${method.service}/${method.method}`, method] as const))(
    '%s: never INTERNAL, UNKNOWN or a stack trace for bad values, and the server answers afterwards',
    async (label, method) => {
      const rng = caseRng(seed, label);
      const failures: string[] = [];
      let sent = 0;
      for (let run = 0; run < runs && failures.length < 3; run++) {
        if (run % 4 === 0) await ensureFuzzFixture(server);
        const request = protoMessage(rng, method.requestType, {
          longsAsNumbers: false,
          badness: rng.pick([0.02, 0.1, 0.4]),
        });
        const outcome = await call(method, request);
        if (!outcome.unsent) sent++;
        const codes = tally.get(label) ?? new Map<string, number>();
        const code = outcome.unsent ? 'unsent' : grpc.status[outcome.code];
        tally.set(label, codes.set(code, (codes.get(code) ?? 0) + 1));
        if (!broken(outcome)) continue;
        const small = await shrink(request, async (candidate) => broken(await call(method, candidate)));
        const last = await call(method, small);
        failures.push(
          `${label} ${JSON.stringify(small).slice(0, 600)} -> ${grpc.status[last.code]} ${last.details.slice(0, 300)}`,
        );
      }
      await expectServerAnswers(server);
      expect({ seed, failures }).toEqual({ seed, failures: [] });
      expect(sent).toBeGreaterThan(runs / 2);
    },
  );
});

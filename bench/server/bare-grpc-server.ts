// The transport alone, for bench/server/floor.ts: a bare @grpc/grpc-js server with the protos and
// proto-loader options the server itself loads, whose every `qdrant.Points` method answers at once with
// a fixed 10-hit search response. No auth, no Nest, no mappers, no search: what a call costs before any
// of vectorstore's own work. Prints `PORT <port> PID <pid>` when it listens.
import * as grpc from '@grpc/grpc-js';
import { loadServiceDefinitions } from '../../test/e2e/support/grpc-clients';

const service = loadServiceDefinitions('qdrant')['qdrant.Points'] as grpc.ServiceDefinition;
const result = Array.from({ length: 10 }, (_, i) => ({ id: { num: String(i + 1) }, score: 1 / (i + 2), version: '0' }));
const handlers: grpc.UntypedServiceImplementation = {};
for (const method of Object.keys(service)) {
  handlers[method] = (_call: unknown, callback: grpc.sendUnaryData<unknown>) => callback(null, { result, time: 1e-5 });
}
const server = new grpc.Server({ 'grpc.enable_channelz': 0 });
server.addService(service, handlers);
server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) => {
  if (error) throw error;
  process.stdout.write(`PORT ${port} PID ${process.pid}\n`);
});

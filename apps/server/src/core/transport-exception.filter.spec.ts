import { Metadata, status as GrpcStatus } from '@grpc/grpc-js';
import { ArgumentsHost, Logger } from '@nestjs/common';
import { DomainError } from '@vectorstore/common';
import { firstValueFrom, Observable } from 'rxjs';
import { TransportExceptionFilter } from './transport-exception.filter';

/** What the filter wrote on an express response. */
interface Sent {
  status?: number;
  json?: unknown;
  text?: unknown;
  headers: Record<string, string>;
}

function httpHost(path: string, sent: Sent): ArgumentsHost {
  const response = {
    headersSent: false,
    setHeader: (name: string, value: string) => (sent.headers[name] = value),
    status(code: number) {
      sent.status = code;
      return response;
    },
    type: () => response,
    json: (body: unknown) => (sent.json = body),
    send: (body: unknown) => (sent.text = body),
    end: () => undefined,
  };
  return {
    getType: () => 'http',
    switchToHttp: () => ({ getRequest: () => ({ path }), getResponse: () => response }),
  } as unknown as ArgumentsHost;
}

const rpcHost = { getType: () => 'rpc' } as unknown as ArgumentsHost;

async function grpcAnswer(filter: TransportExceptionFilter, exception: unknown): Promise<unknown> {
  return firstValueFrom(filter.catch(exception, rpcHost) as Observable<never>).catch((payload: unknown) => payload);
}

describe(TransportExceptionFilter.name, () => {
  const filter = new TransportExceptionFilter();

  beforeAll(() => {
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });

  afterAll(() => {
    jest.restoreAllMocks();
  });

  describe('catch', () => {
    // What @vectorstore/points throws for an input the engine refuses (see its engine-input.ts).
    const engineInput = DomainError.validation(['oversampling: expected a number >= 1, got 0.5']);

    it('should answer a library validation error 422 on REST with the field path and location', () => {
      const sent: Sent = { headers: {} };
      filter.catch(engineInput, httpHost('/collections/c/points/search', sent));
      expect(sent.status).toBe(422);
      expect(sent.json).toEqual({
        status: { error: 'Validation error in JSON body: [oversampling: expected a number >= 1, got 0.5]' },
        time: 0,
      });
    });

    it('should answer the same error INVALID_ARGUMENT on gRPC with the message kept', async () => {
      expect(await grpcAnswer(filter, engineInput)).toEqual({
        code: GrpcStatus.INVALID_ARGUMENT,
        message: 'Validation error in body: [oversampling: expected a number >= 1, got 0.5]',
      });
    });

    it('should answer errors that are not DomainErrors 500 / INTERNAL with a generic message', async () => {
      const sent: Sent = { headers: {} };
      filter.catch(new Error('bug'), httpHost('/collections', sent));
      expect(sent.status).toBe(500);
      expect(sent.json).toEqual({
        status: { error: expect.stringMatching(/^Service internal error \(correlation id /) as unknown },
        time: 0,
      });
      expect(await grpcAnswer(filter, new Error('bug'))).toMatchObject({ code: GrpcStatus.INTERNAL });
    });

    describe('a full disk', () => {
      const enospc = () =>
        Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' });
      const message =
        'Insufficient storage: No space left on device (ENOSPC): the write could not be stored; free disk space and retry';

      beforeAll(() => {
        jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      });

      it("should answer REST 507 with Qdrant's 'Insufficient storage' wording, not 500", () => {
        const sent: Sent = { headers: {} };
        filter.catch(enospc(), httpHost('/collections/c/points', sent));
        expect(sent.status).toBe(507);
        expect(sent.json).toEqual({ status: { error: message }, time: 0 });
      });

      it('should answer an exceeded quota wrapped in an internal error 507 too, on the auth routes as well', () => {
        const quota = Object.assign(new Error('EDQUOT: disk quota exceeded, open'), { code: 'EDQUOT' });
        const sent: Sent = { headers: {} };
        filter.catch(DomainError.internal('saving users failed', quota), httpHost('/api/auth/users', sent));
        expect(sent.status).toBe(507);
        expect(sent.json).toEqual({ status: { error: expect.stringMatching(/^Insufficient storage: Disk quota/) } });
      });

      it("should answer gRPC RESOURCE_EXHAUSTED with the message and Qdrant's insufficient-storage marker", async () => {
        const payload = (await grpcAnswer(filter, enospc())) as { code: number; message: string; metadata: Metadata };
        expect(payload).toMatchObject({ code: GrpcStatus.RESOURCE_EXHAUSTED, message });
        expect(payload.metadata.get('qdrant-insufficient-storage')).toEqual(['1']);
      });
    });

    it('should say where a path parameter broke a rule', () => {
      const sent: Sent = { headers: {} };
      const error = DomainError.validation(['collection_name: collection name cannot contain "/" char'], 'path');
      filter.catch(error, httpHost('/collections/a%2Fb', sent));
      expect(sent.status).toBe(422);
      expect(sent.json).toEqual({
        status: {
          error: 'Validation error in path parameters: [collection_name: collection name cannot contain "/" char]',
        },
        time: 0,
      });
    });
  });
});

import type { CollectionCatalog } from '@vectorstore/collections';
import { Metadata } from '@grpc/grpc-js';
import { Controller } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { CredentialVerifier, Operation, Public } from '@vectorstore/auth';
import { GrpcAuthGuard } from './grpc-auth.guard';

// A verifier that refuses every credential: a call passes only if its handler is public.
const refusing = { verify: () => Promise.reject(new Error('unauthenticated')) } as unknown as CredentialVerifier;

function rpc(controller: object, handler: (...args: unknown[]) => unknown): ExecutionContextHost {
  const context = new ExecutionContextHost([{}, new Metadata()], controller as never, handler);
  context.setType('rpc');
  return context;
}

@Controller()
class Protected {
  @Operation('Points/Search')
  search(): void {}
}

/** The same handler function, inherited, under a class that is public. */
@Public()
@Controller()
class OpenCopy extends Protected {}

/** No per-collection access is checked here: no catalog is asked. */
const noCatalog = { resolve: () => undefined } as unknown as CollectionCatalog;

describe('GrpcAuthGuard', () => {
  it('should answer per class when two controllers share one handler function', async () => {
    expect(OpenCopy.prototype.search).toBe(Protected.prototype.search);
    const guard = new GrpcAuthGuard(new Reflector(), refusing, noCatalog);
    await expect(guard.canActivate(rpc(Protected, Protected.prototype.search))).rejects.toThrow('unauthenticated');
    // Before any call was cached this is public (true); after it, the cached requirement of `Protected` is used.
    await expect(guard.canActivate(rpc(OpenCopy, OpenCopy.prototype.search))).resolves.toBe(true);
  });

  it('should answer a public class as public (order reversed)', async () => {
    const guard = new GrpcAuthGuard(new Reflector(), refusing, noCatalog);
    await expect(guard.canActivate(rpc(OpenCopy, OpenCopy.prototype.search))).resolves.toBe(true);
    await expect(guard.canActivate(rpc(Protected, Protected.prototype.search))).rejects.toThrow('unauthenticated');
  });
});

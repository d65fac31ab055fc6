import { loadSync } from '@grpc/proto-loader';
import { DomainError, ValidationIssues } from '@vectorstore/common';
import { protoLoaderOptions } from '../../grpc/proto-paths';

/**
 * Test support: pushes objects through the real Points service definition (proto-loader with the
 * server's options), so mappers see exactly what the server receives and clients decode.
 */
interface MethodCodec {
  requestSerialize(value: unknown): Buffer;
  requestDeserialize(bytes: Buffer): unknown;
  responseSerialize(value: unknown): Buffer;
  responseDeserialize(bytes: Buffer): unknown;
}

let service: Record<string, MethodCodec> | undefined;

function method(name: string): MethodCodec {
  service ??= loadSync('vectorstore/points_service.proto', protoLoaderOptions())[
    'vectorstore.Points'
  ] as unknown as Record<string, MethodCodec>;
  const codec = service[name];
  if (!codec) throw new Error(`no method Points/${name}`);
  return codec;
}

/** Encodes a request object for `rpc` and decodes it as the server would (the `__Output` shape). */
export function wireRequest<T>(rpc: string, request: object): T {
  const codec = method(rpc);
  return codec.requestDeserialize(codec.requestSerialize(request)) as T;
}

/** Encodes a response object of `rpc` and decodes it as a client would. */
export function wireResponse<T>(rpc: string, response: object): T {
  const codec = method(rpc);
  return codec.responseDeserialize(codec.responseSerialize(response)) as T;
}

/** Runs `map` and returns the issue list of the validation error it throws (or fails). */
export function issuesOf(map: () => unknown): string[] {
  try {
    map();
  } catch (error) {
    if (error instanceof DomainError) {
      const match = /^Validation error in body: \[(.*)\]$/s.exec(error.message);
      if (match) return match[1].split('; ');
      throw new Error(`unexpected DomainError: ${error.message}`);
    }
    throw error;
  }
  throw new Error('expected a validation error');
}

/** Runs a sub-mapper with a fresh ValidationIssues and returns its result and issues. */
export function collect<T>(map: (issues: ValidationIssues) => T): { value: T; issues: string[] } {
  const issues = new ValidationIssues();
  const value = map(issues);
  try {
    issues.throwIfAny();
    return { value, issues: [] };
  } catch (error) {
    const match = /^Validation error in body: \[(.*)\]$/s.exec((error as Error).message);
    return { value, issues: match ? match[1].split('; ') : [(error as Error).message] };
  }
}

export const f32 = (...values: number[]): Float32Array => Float32Array.from(values);

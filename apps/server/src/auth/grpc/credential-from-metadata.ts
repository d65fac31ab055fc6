import type { Metadata } from '@grpc/grpc-js';

/**
 * The credential of a gRPC call, where Qdrant's clients put it: `api-key` first, else
 * `authorization: Bearer <token>`.
 */
export function credentialFromMetadata(metadata: Metadata | undefined): string | undefined {
  if (!metadata || typeof metadata.get !== 'function') return undefined;
  const apiKey = firstString(metadata.get('api-key'));
  if (apiKey) return apiKey;
  const authorization = firstString(metadata.get('authorization'));
  const match = authorization ? /^Bearer +(\S+) *$/i.exec(authorization) : null;
  return match ? match[1] : undefined;
}

function firstString(values: ReadonlyArray<string | Buffer>): string | undefined {
  const value = values[0];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

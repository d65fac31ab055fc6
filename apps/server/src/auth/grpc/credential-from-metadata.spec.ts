import { Metadata } from '@grpc/grpc-js';
import { credentialFromMetadata } from './credential-from-metadata';

function metadata(entries: Record<string, string>): Metadata {
  const result = new Metadata();
  for (const [key, value] of Object.entries(entries)) result.set(key, value);
  return result;
}

describe('credentialFromMetadata', () => {
  it('should read api-key first, as Qdrant does', () => {
    expect(credentialFromMetadata(metadata({ 'api-key': 'key', authorization: 'Bearer token' }))).toBe('key');
  });

  it('should read a bearer token from authorization', () => {
    expect(credentialFromMetadata(metadata({ authorization: 'Bearer token' }))).toBe('token');
    expect(credentialFromMetadata(metadata({ authorization: 'bearer token' }))).toBe('token');
  });

  it('should find nothing in other schemes, empty values or missing metadata', () => {
    expect(credentialFromMetadata(metadata({ authorization: 'Basic dXNlcjpwdw==' }))).toBeUndefined();
    expect(credentialFromMetadata(metadata({ authorization: 'Bearer ' }))).toBeUndefined();
    expect(credentialFromMetadata(metadata({ 'api-key': '' }))).toBeUndefined();
    expect(credentialFromMetadata(undefined)).toBeUndefined();
  });
});

import { DomainError, ErrorKind } from '@vectorstore/common';
import {
  archivePathProblem,
  collectionNameProblem,
  encodeManifest,
  parseManifest,
  peerIdProblem,
  validateManifest,
} from './snapshot-manifest';
import { manifestFor } from './testing/snapshot-fixtures';

function refusal(value: unknown): DomainError {
  try {
    validateManifest(value);
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected the manifest to be refused');
}

const valid = () => manifestFor([{ path: 'collection/config.json', data: '{}' }]);

describe('snapshot manifest', () => {
  it('should accept a valid manifest and return exactly its fields', () => {
    const manifest = validateManifest(valid());

    expect(manifest).toEqual(valid());
  });

  it('should round-trip through encodeManifest and parseManifest', () => {
    const manifest = validateManifest(
      manifestFor([{ path: 'a', data: 'x' }], { kind: 'shard', shard_id: 3, collections: ['c'] }),
    );

    expect(parseManifest(encodeManifest(manifest))).toEqual(manifest);
  });

  it('should accept a full snapshot of several collections, or of none', () => {
    expect(validateManifest(manifestFor([], { kind: 'full', collections: ['a', 'b'] })).collections).toEqual([
      'a',
      'b',
    ]);
    expect(validateManifest(manifestFor([], { kind: 'full', collections: [] })).collections).toEqual([]);
  });

  it('should refuse an unknown format version with a message naming both versions', () => {
    const error = refusal({ ...valid(), version: 99, some_new_field: true });

    expect(error.kind).toBe(ErrorKind.InvalidArgument);
    expect(error.message).toBe(
      'Bad request: invalid snapshot archive: snapshot.json: unsupported format version 99; this server reads version 1',
    );
  });

  it('should refuse a manifest of another format', () => {
    expect(refusal({ ...valid(), format: 'qdrant' }).message).toContain(
      'format must be "vectorstore-snapshot", got "qdrant": not a vectorstore snapshot',
    );
    expect(refusal([]).message).toContain('snapshot.json: must be a JSON object');
  });

  it.each([
    ['an unknown field', { extra: 1 }, 'unknown field "extra"'],
    ['an unknown kind', { kind: 'partial' }, 'kind must be one of collection, full, shard, cluster, got "partial"'],
    ['a created_at that is not UTC ISO 8601', { created_at: '2024-07-22 08:31:55' }, 'created_at must be'],
    ['an impossible created_at', { created_at: '2024-13-45T08:31:55Z' }, 'created_at must be'],
    ['a numeric peer id', { peer_id: 5 }, 'peer_id must be a decimal u64 in a string, got 5'],
    ['a peer id over u64', { peer_id: '18446744073709551616' }, 'peer_id must be a decimal u64'],
    ['collections that are not an array', { collections: 'c' }, 'collections must be an array'],
    ['two collections in a collection snapshot', { collections: ['a', 'b'] }, 'exactly one name'],
    ['a collection name with a slash', { collections: ['a/b'] }, 'collections[0] "a/b" cannot contain "/"'],
    ['a collection named ..', { collections: ['..'] }, 'collections[0] ".." cannot be ".."'],
    ['a shard_id outside a shard snapshot', { shard_id: 1 }, 'shard_id is only allowed in a shard snapshot'],
    ['a shard snapshot without shard_id', { kind: 'shard' }, 'shard_id must be an integer from 0 to 4294967295'],
    ['files that are not an array', { files: {} }, 'files must be an array'],
  ])('should refuse %s', (_what, overrides, message) => {
    expect(refusal({ ...valid(), ...overrides }).message).toContain(message);
  });

  it.each([
    ['an absolute path', { path: '/etc/x' }, 'files[0].path "/etc/x" is absolute'],
    ['a .. segment', { path: 'a/../../x' }, 'contains a `..` segment'],
    ['a . segment', { path: './x' }, 'contains a `.` segment'],
    ['an empty segment', { path: 'a//b' }, 'contains an empty segment'],
    ['a trailing slash', { path: 'a/' }, 'contains an empty segment'],
    ['a backslash', { path: 'a\\..\\x' }, 'contains a backslash'],
    ['a NUL', { path: 'a\0b' }, 'contains a control character'],
    ['the manifest name', { path: 'snapshot.json' }, "is the manifest's own name"],
    ['a negative size', { size: -1 }, 'files[0].size must be a non-negative integer, got -1'],
    ['a fractional size', { size: 1.5 }, 'files[0].size must be a non-negative integer'],
    ['an uppercase sha256', { sha256: 'A'.repeat(64) }, 'files[0].sha256 must be 64 lowercase hex digits'],
    ['a short sha256', { sha256: 'ab' }, 'files[0].sha256 must be 64 lowercase hex digits'],
    ['an unknown field', { mode: 0o777 }, 'files[0] has unknown field "mode"'],
  ])('should refuse a file entry with %s', (_what, overrides, message) => {
    const base = valid();
    const error = refusal({ ...base, files: [{ ...base.files[0], ...overrides }] });

    expect(error.kind).toBe(ErrorKind.InvalidArgument);
    expect(error.message).toContain(message);
  });

  it('should refuse a file listed twice, and a file that is also the folder of another', () => {
    const file = { path: 'a', size: 0, sha256: '0'.repeat(64) };

    expect(refusal({ ...valid(), files: [file, file] }).message).toContain('files[1].path "a" is listed twice');
    expect(refusal({ ...valid(), files: [file, { ...file, path: 'a/b' }] }).message).toContain(
      '"a" is listed as a file and is also the folder of "a/b"',
    );
  });

  it('should refuse bytes that are not UTF-8 JSON', () => {
    expect(() => parseManifest(Buffer.from('{"format":'))).toThrow(/snapshot.json is not valid UTF-8 JSON/);
    expect(() => parseManifest(Buffer.from([0xff, 0xfe]))).toThrow(/not valid UTF-8 JSON/);
  });

  it('should not let __proto__ in the JSON through', () => {
    expect(() => parseManifest(Buffer.from(JSON.stringify(valid()).replace('{', '{"__proto__":{"x":1},')))).toThrow(
      /unknown field "__proto__"/,
    );
  });

  describe('archivePathProblem', () => {
    it('should accept nested relative paths, including non-ASCII and long ones', () => {
      expect(archivePathProblem('shards/0/segments/1.2.seg')).toBeUndefined();
      expect(archivePathProblem('données/é')).toBeUndefined();
      expect(archivePathProblem(`${'a'.repeat(200)}/${'b'.repeat(200)}`)).toBeUndefined();
    });

    it('should refuse a segment over 255 bytes and a path over 4096 bytes', () => {
      expect(archivePathProblem('a'.repeat(256))).toBe('has a segment longer than 255 bytes');
      expect(archivePathProblem(Array(20).fill('a'.repeat(250)).join('/'))).toBe('is longer than 4096 bytes');
    });
  });

  it('should check collection names and peer ids as the store uses them', () => {
    expect(collectionNameProblem('my-collection')).toBeUndefined();
    expect(collectionNameProblem('')).toBe('must be 1 to 255 characters');
    expect(collectionNameProblem('é'.repeat(255))).toBeUndefined();
    expect(collectionNameProblem('.')).toBe('cannot be "."');
    expect(peerIdProblem('18446744073709551615')).toBeUndefined();
    expect(peerIdProblem('007')).toBe('must be a decimal u64');
  });
});

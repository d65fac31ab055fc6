import { ErrorKind } from '@vectorstore/common';
import { Access, accessOfRole, grants, isAccess, narrowerAccess, weakerAccess } from './access.model';
import { assertAccess, checkAccess, globalLevelNeeded, requiredAccess, visibleCollections } from './access-policy';
import { OPERATION_ACCESS, OperationName } from './operations';

describe('requiredAccess', () => {
  it('should make public handlers public', () => {
    expect(requiredAccess({ isPublic: true })).toBe('public');
  });

  it('should take the rule of the declared operation', () => {
    expect(requiredAccess({ isPublic: false, operation: 'Collections/List' })).toEqual({ scope: 'list' });
    expect(requiredAccess({ isPublic: false, operation: 'Collections/Create' })).toEqual({
      scope: 'global',
      manage: true,
    });
    expect(requiredAccess({ isPublic: false, operation: 'Points/Upsert' })).toEqual({
      scope: 'collection',
      write: true,
    });
  });

  it('should fail closed: no operation, or an unknown one, needs global manage', () => {
    const closed = { scope: 'global', manage: true };
    expect(requiredAccess({ isPublic: false })).toEqual(closed);
    expect(requiredAccess({ isPublic: false, operation: 'Collections/Nope' })).toEqual(closed);
    expect(requiredAccess({ isPublic: false, operation: 'toString' })).toEqual(closed);
  });

  it('should make every Collections write of Qdrant a manage operation', () => {
    for (const method of [
      'Create',
      'Update',
      'Delete',
      'UpdateAliases',
      'UpdateCollectionClusterSetup',
      'CreateShardKey',
      'DeleteShardKey',
    ]) {
      expect(OPERATION_ACCESS[`Collections/${method}` as OperationName]).toEqual({ scope: 'global', manage: true });
    }
  });
});

describe('assertAccess', () => {
  it('should let manage do anything and read only read', () => {
    expect(() => assertAccess('m', 'manage')).not.toThrow();
    expect(() => assertAccess('m', 'read')).not.toThrow();
    expect(() => assertAccess('r', 'read')).not.toThrow();
  });

  it('should deny a write to read access with PermissionDenied', () => {
    expect(() => assertAccess('r', 'manage')).toThrow(expect.objectContaining({ kind: ErrorKind.PermissionDenied }));
  });
});

describe('access model', () => {
  it('should map roles to Qdrant access levels', () => {
    expect(accessOfRole('admin')).toBe('m');
    expect(accessOfRole('reader')).toBe('r');
  });

  it('should take the weaker of two levels', () => {
    expect(weakerAccess('m', 'r')).toBe('r');
    expect(weakerAccess('r', 'm')).toBe('r');
    expect(weakerAccess('m', 'm')).toBe('m');
  });

  it('should grant read to both levels and manage only to m', () => {
    expect(grants('r', 'read')).toBe(true);
    expect(grants('r', 'manage')).toBe(false);
    expect(grants('m', 'manage')).toBe(true);
  });
});

describe('per-collection access (Qdrant JWT RBAC)', () => {
  const readA: Access = [{ collection: 'a', access: 'r' }];
  const writeA: Access = [{ collection: 'a', access: 'rw' }];
  const denied = (access: Access, rule: Parameters<typeof checkAccess>[1], collections: string[]) => {
    try {
      checkAccess(access, rule, collections);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  };

  it.each([
    ['a read of a', readA, OPERATION_ACCESS['Points/Search'], ['a'], undefined],
    [
      'a write of a with r',
      readA,
      OPERATION_ACCESS['Points/Upsert'],
      ['a'],
      'Forbidden: Write access to collection a is required',
    ],
    ['a write of a with rw', writeA, OPERATION_ACCESS['Points/Upsert'], ['a'], undefined],
    ['an index of a with rw (extras)', writeA, OPERATION_ACCESS['Points/CreateFieldIndex'], ['a'], undefined],
    ['a read of b', readA, OPERATION_ACCESS['Points/Search'], ['b'], 'Forbidden: Access to collection b is required'],
    [
      'a lookup into b',
      readA,
      OPERATION_ACCESS['Points/Query'],
      ['a', 'b'],
      'Forbidden: Access to collection b is required',
    ],
    [
      'creating a collection',
      writeA,
      OPERATION_ACCESS['Collections/Create'],
      [],
      'Forbidden: Global access is required',
    ],
    ['the node’s metrics', writeA, OPERATION_ACCESS['Service/Metrics'], [], 'Forbidden: Global access is required'],
    ['a list', readA, OPERATION_ACCESS['Collections/List'], [], undefined],
    ['who am I', readA, OPERATION_ACCESS['Auth/Me'], [], undefined],
  ] as const)('should decide %s', (_, access, rule, collections, message) => {
    expect(denied(access, rule, [...collections])).toBe(message);
  });

  it('should keep global levels as before: r reads everything, writes need m', () => {
    expect(denied('r', OPERATION_ACCESS['Points/Search'], [])).toBeUndefined();
    expect(denied('r', OPERATION_ACCESS['Points/Upsert'], [])).toBe('Forbidden: Global manage access is required');
    expect(denied('m', OPERATION_ACCESS['Collections/Create'], [])).toBeUndefined();
    expect(globalLevelNeeded(OPERATION_ACCESS['Snapshots/Create'])).toBe('manage');
  });

  it('should show a list only the granted collections', () => {
    expect(visibleCollections('r')).toBeUndefined();
    expect([...(visibleCollections(writeA) ?? [])]).toEqual(['a']);
  });

  it('should never let a token grant more than its user may do now', () => {
    expect(narrowerAccess('m', writeA)).toEqual(writeA);
    expect(narrowerAccess('r', writeA)).toEqual(readA);
    expect(
      narrowerAccess(writeA, [
        { collection: 'a', access: 'r' },
        { collection: 'b', access: 'rw' },
      ]),
    ).toEqual(readA);
  });

  it('should accept Qdrant’s claim forms and refuse others', () => {
    expect(isAccess('r')).toBe(true);
    expect(isAccess([{ collection: 'a', access: 'rw' }])).toBe(true);
    expect(isAccess([{ collection: 'a', access: 'prw' }])).toBe(false);
    expect(isAccess([{ collection: 'a', access: 'r', payload: {} }])).toBe(false);
    expect(
      isAccess([
        { collection: 'a', access: 'r' },
        { collection: 'a', access: 'rw' },
      ]),
    ).toBe(false);
    expect(isAccess('w')).toBe(false);
  });
});

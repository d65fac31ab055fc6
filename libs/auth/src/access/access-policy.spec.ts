import { ErrorKind } from '@vectorstore/common';
import { accessOfRole, grants, weakerAccess } from './access.model';
import { assertAccess, requiredAccess } from './access-policy';
import { OPERATION_ACCESS, OperationName } from './operations';

describe('requiredAccess', () => {
  it('should make public handlers public', () => {
    expect(requiredAccess({ isPublic: true })).toBe('public');
  });

  it('should take the access of the declared operation', () => {
    expect(requiredAccess({ isPublic: false, operation: 'Collections/List' })).toBe('read');
    expect(requiredAccess({ isPublic: false, operation: 'Collections/Create' })).toBe('manage');
  });

  it('should fail closed: no operation, or an unknown one, needs manage', () => {
    expect(requiredAccess({ isPublic: false })).toBe('manage');
    expect(requiredAccess({ isPublic: false, operation: 'Collections/Nope' })).toBe('manage');
    expect(requiredAccess({ isPublic: false, operation: 'toString' })).toBe('manage');
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
      expect(OPERATION_ACCESS[`Collections/${method}` as OperationName]).toBe('manage');
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

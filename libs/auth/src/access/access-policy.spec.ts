import { ErrorKind } from '@vectorstore/common';
import { accessOfRole, grants, weakerAccess } from './access.model';
import { assertAccess, requiredAccess } from './access-policy';
import { MANAGE_OPERATIONS, operationOfGrpcPath } from './manage-operations';

describe('requiredAccess', () => {
  it('should make public handlers public', () => {
    expect(requiredAccess({ isPublic: true })).toBe('public');
  });

  it('should default to read', () => {
    expect(requiredAccess({ isPublic: false })).toBe('read');
    expect(requiredAccess({ isPublic: false, operations: ['Collections/List'] })).toBe('read');
  });

  it('should honour a declared manage level', () => {
    expect(requiredAccess({ isPublic: false, declared: 'manage' })).toBe('manage');
  });

  it('should fail closed: a write operation needs manage even when declared read', () => {
    expect(requiredAccess({ isPublic: false, declared: 'read', operations: ['Collections/Create'] })).toBe('manage');
  });

  it('should cover every Collections write of Qdrant', () => {
    for (const method of [
      'Create',
      'Update',
      'Delete',
      'UpdateAliases',
      'UpdateCollectionClusterSetup',
      'CreateShardKey',
      'DeleteShardKey',
    ]) {
      expect(MANAGE_OPERATIONS.has(`Collections/${method}`)).toBe(true);
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

describe('operationOfGrpcPath', () => {
  it('should strip the package', () => {
    expect(operationOfGrpcPath('/qdrant.Collections/Create')).toBe('Collections/Create');
    expect(operationOfGrpcPath('/vectorstore.Collections/Get')).toBe('Collections/Get');
    expect(operationOfGrpcPath('/grpc.health.v1.Health/Check')).toBe('Health/Check');
  });

  it('should reject malformed paths', () => {
    expect(operationOfGrpcPath('Collections')).toBeUndefined();
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

import { ErrorKind } from '@vectorstore/common';
import { createHmac } from 'node:crypto';
import { AccessTokenService, checkAccessClaims } from './access-token.service';

const SECRET = 'unit-test-secret-unit-test-secret-0123';
const user = { id: '6f1c1a59-4a4e-4a5e-9a55-1d2b3c4d5e6f', role: 'admin' as const, tokenVersion: 3 };

function jwt(header: object, payload: object, secret?: string): string {
  const encode = (part: object): string => Buffer.from(JSON.stringify(part)).toString('base64url');
  const unsigned = `${encode(header)}.${encode(payload)}`;
  if (secret === undefined) return `${unsigned}.`;
  const algorithm = (header as { alg: string }).alg === 'HS512' ? 'sha512' : 'sha256';
  return `${unsigned}.${createHmac(algorithm, secret).update(unsigned).digest('base64url')}`;
}

function decode(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as Record<string, unknown>;
}

const unauthenticated = expect.objectContaining({ kind: ErrorKind.Unauthenticated });

describe(AccessTokenService.name, () => {
  const service = new AccessTokenService(SECRET, 900);

  describe('sign', () => {
    it('should carry sub, jti, iat, exp = iat + ttl, the access type and the role access', () => {
      const claims = decode(service.sign(user));
      expect(claims).toMatchObject({
        sub: user.id,
        token_use: 'access',
        access: 'm',
        ver: 3,
        iss: 'vectorstore',
        aud: 'vectorstore',
      });
      expect(typeof claims.jti).toBe('string');
      expect(Number(claims.exp) - Number(claims.iat)).toBe(900);
    });

    it('should give readers r', () => {
      expect(decode(service.sign({ ...user, role: 'reader' })).access).toBe('r');
    });

    it('should use a fresh jti each time', () => {
      expect(decode(service.sign(user)).jti).not.toBe(decode(service.sign(user)).jti);
    });
  });

  describe('verify', () => {
    const valid = (): Record<string, unknown> => decode(service.sign(user));

    it('should return the claims of its own tokens', () => {
      expect(service.verify(service.sign(user))).toMatchObject({ sub: user.id, access: 'm' });
    });

    it.each([
      ['alg none', () => jwt({ alg: 'none', typ: 'JWT' }, valid())],
      ['HS512', () => jwt({ alg: 'HS512', typ: 'JWT' }, valid(), SECRET)],
      ['another secret', () => jwt({ alg: 'HS256', typ: 'JWT' }, valid(), `${SECRET}x`)],
      [
        'no exp',
        () => {
          const { exp: _exp, ...claims } = valid();
          return jwt({ alg: 'HS256', typ: 'JWT' }, claims, SECRET);
        },
      ],
      ['another token type', () => jwt({ alg: 'HS256', typ: 'JWT' }, { ...valid(), token_use: 'refresh' }, SECRET)],
      ['another audience', () => jwt({ alg: 'HS256', typ: 'JWT' }, { ...valid(), aud: 'qdrant' }, SECRET)],
      ['an unknown access level', () => jwt({ alg: 'HS256', typ: 'JWT' }, { ...valid(), access: 'rw' }, SECRET)],
      ['a string payload', () => jwt({ alg: 'HS256', typ: 'JWT' }, ['x'], SECRET)],
      ['garbage', () => 'garbage'],
    ])('should refuse %s as Unauthenticated', (_, make) => {
      expect(() => service.verify(make())).toThrow(unauthenticated);
    });

    it('should say an expired token expired', () => {
      const token = jwt({ alg: 'HS256', typ: 'JWT' }, { ...valid(), iat: 1000, exp: 2000 }, SECRET);
      expect(() => service.verify(token)).toThrow('Invalid API key or JWT: token expired');
    });
  });
});

describe('checkAccessClaims', () => {
  it('should refuse claims whose exp has passed', () => {
    const claims = { sub: 's', jti: 'j', iat: 1, exp: 100, token_use: 'access', access: 'r', ver: 0 };
    expect(() => checkAccessClaims(claims, 100)).toThrow(unauthenticated);
    expect(checkAccessClaims(claims, 99)).toEqual(claims);
  });
});

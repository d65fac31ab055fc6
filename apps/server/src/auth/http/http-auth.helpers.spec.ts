import { AuthMessages } from '@vectorstore/auth';
import { ErrorKind } from '@vectorstore/common';
import type { Request } from 'express';
import { DtoValidationPipe } from '../../core/validation/dto-validation.pipe';
import { bearerChallenge } from './bearer-challenge';
import { credentialFromRequest } from './credential-from-request';
import { LoginRequestDto } from './login.request.dto';

describe('credentialFromRequest', () => {
  const request = (headers: Record<string, string>): Request => ({ headers }) as unknown as Request;

  it('should prefer the api-key header and accept a bearer token', () => {
    expect(credentialFromRequest(request({ 'api-key': 'key', authorization: 'Bearer token' }))).toBe('key');
    expect(credentialFromRequest(request({ authorization: 'Bearer token' }))).toBe('token');
    expect(credentialFromRequest(request({ authorization: 'Basic abc' }))).toBeNull();
    expect(credentialFromRequest(request({}))).toBeNull();
  });
});

describe('bearerChallenge', () => {
  it('should carry no error code when nothing was presented', () => {
    expect(bearerChallenge(AuthMessages.missingCredential)).toBe('Bearer realm="vectorstore"');
  });

  it('should name invalid_token when a token was refused', () => {
    expect(bearerChallenge('Invalid API key or JWT: token expired')).toBe(
      'Bearer realm="vectorstore", error="invalid_token", error_description="Invalid API key or JWT: token expired"',
    );
  });
});

describe(`${LoginRequestDto.name} through ${DtoValidationPipe.name}`, () => {
  const pipe = new DtoValidationPipe();
  const transform = (value: unknown): Promise<unknown> =>
    Promise.resolve().then(() => pipe.transform(value, { type: 'body', metatype: LoginRequestDto }));

  describe('transform', () => {
    it('should pass a valid body as the DTO', async () => {
      await expect(transform({ email: 'a@example.com', password: 'x' })).resolves.toBeInstanceOf(LoginRequestDto);
    });

    it('should name every bad field once, in the Qdrant validation format', async () => {
      await expect(transform({ email: 5, password: '', extra: true })).rejects.toMatchObject({
        kind: ErrorKind.InvalidArgument,
        message:
          'Validation error in body: [extra: unknown property; email: must be a string; password: must not be empty]',
      });
    });

    it('should treat a missing body as empty and refuse non-objects', async () => {
      await expect(transform(undefined)).rejects.toMatchObject({
        message: expect.stringContaining('email: is required'),
      });
      await expect(transform([])).rejects.toMatchObject({
        message: 'Validation error in body: [body: must be a JSON object]',
      });
    });
  });
});

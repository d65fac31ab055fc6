import { AuthErrors, AuthService, TokenPair } from '@vectorstore/auth';
import { AppConfig } from '@vectorstore/config';
import type { Request, Response } from 'express';
import { AuthHttpController } from './auth.http.controller';

const COOKIE_REQUEST = {
  headers: { 'x-vectorstore-session': 'cookie', cookie: 'vectorstore_refresh=token' },
  secure: false,
} as unknown as Request;

function controllerWhoseRefresh(refresh: () => Promise<TokenPair>): AuthHttpController {
  const auth = { refresh } as unknown as AuthService;
  const config = { auth: { cookieSecure: 'auto', refreshTtlSeconds: 60 } } as AppConfig;
  return new AuthHttpController(auth, config);
}

function recordingResponse(): { response: Response; calls: string[] } {
  const calls: string[] = [];
  const response = {
    cookie: () => calls.push('cookie'),
    clearCookie: () => calls.push('clearCookie'),
  } as unknown as Response;
  return { response, calls };
}

describe(AuthHttpController.name, () => {
  describe('refresh', () => {
    it('should clear the cookie when the refresh token is refused (401)', async () => {
      const controller = controllerWhoseRefresh(() => Promise.reject(AuthErrors.invalidRefreshToken()));
      const { response, calls } = recordingResponse();
      await expect(controller.refresh({}, COOKIE_REQUEST, response)).rejects.toBeDefined();
      expect(calls).toEqual(['clearCookie']);
    });

    it('should keep the cookie when the refresh fails for another reason (a 5xx)', async () => {
      const controller = controllerWhoseRefresh(() => Promise.reject(new Error('EIO: i/o error, write')));
      const { response, calls } = recordingResponse();
      await expect(controller.refresh({}, COOKIE_REQUEST, response)).rejects.toThrow('EIO');
      expect(calls).toEqual([]);
    });
  });
});

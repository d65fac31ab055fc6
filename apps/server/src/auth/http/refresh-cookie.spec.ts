import type { Request, Response } from 'express';
import {
  clearRefreshCookie,
  readRefreshCookie,
  REFRESH_COOKIE_NAME,
  setRefreshCookie,
  wantsRefreshCookie,
} from './refresh-cookie';

function request(headers: Record<string, string>, secure = false): Request {
  return { headers, secure } as unknown as Request;
}

function recordingResponse(): { response: Response; calls: unknown[][] } {
  const calls: unknown[][] = [];
  const response = {
    cookie: (...args: unknown[]) => calls.push(['cookie', ...args]),
    clearCookie: (...args: unknown[]) => calls.push(['clearCookie', ...args]),
  } as unknown as Response;
  return { response, calls };
}

describe('refresh cookie', () => {
  describe(wantsRefreshCookie.name, () => {
    it('should opt in only with the session header set to cookie', () => {
      expect(wantsRefreshCookie(request({ 'x-vectorstore-session': 'cookie' }))).toBe(true);
      expect(wantsRefreshCookie(request({ 'x-vectorstore-session': ' Cookie ' }))).toBe(true);
      expect(wantsRefreshCookie(request({ 'x-vectorstore-session': 'body' }))).toBe(false);
      expect(wantsRefreshCookie(request({ cookie: `${REFRESH_COOKIE_NAME}=abc` }))).toBe(false);
    });
  });

  describe(readRefreshCookie.name, () => {
    it('should read our cookie among others', () => {
      expect(readRefreshCookie(request({ cookie: `a=1; ${REFRESH_COOKIE_NAME}=tok_en-1; b=2` }))).toBe('tok_en-1');
    });

    it('should answer null without the cookie or with a value we never set', () => {
      expect(readRefreshCookie(request({}))).toBeNull();
      expect(readRefreshCookie(request({ cookie: 'other=1' }))).toBeNull();
      expect(readRefreshCookie(request({ cookie: `${REFRESH_COOKIE_NAME}=a%20b` }))).toBeNull();
      expect(readRefreshCookie(request({ cookie: `${REFRESH_COOKIE_NAME}=${'x'.repeat(513)}` }))).toBeNull();
    });
  });

  describe(setRefreshCookie.name, () => {
    it('should set an HttpOnly, SameSite=Strict cookie on /api/auth for the refresh lifetime', () => {
      const { response, calls } = recordingResponse();
      setRefreshCookie(request({}), response, 'token', 604800);
      expect(calls).toEqual([
        [
          'cookie',
          REFRESH_COOKIE_NAME,
          'token',
          { httpOnly: true, secure: false, sameSite: 'strict', path: '/api/auth', maxAge: 604800000 },
        ],
      ]);
    });

    it('should mark the cookie Secure when the request came over TLS', () => {
      const { response, calls } = recordingResponse();
      setRefreshCookie(request({}, true), response, 'token', 60);
      expect(calls[0][3]).toMatchObject({ secure: true });
    });
  });

  describe(clearRefreshCookie.name, () => {
    it('should clear the cookie with the attributes it was set with', () => {
      const { response, calls } = recordingResponse();
      clearRefreshCookie(request({}), response);
      expect(calls).toEqual([
        ['clearCookie', REFRESH_COOKIE_NAME, { httpOnly: true, secure: false, sameSite: 'strict', path: '/api/auth' }],
      ]);
    });
  });
});

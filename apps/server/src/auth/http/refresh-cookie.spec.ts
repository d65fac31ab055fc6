import type { Request, Response } from 'express';
import { REFRESH_COOKIE_NAME, RefreshCookie, SECURE_REFRESH_COOKIE_NAME, wantsRefreshCookie } from './refresh-cookie';

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

  describe(RefreshCookie.name, () => {
    const auto = new RefreshCookie('auto');
    const always = new RefreshCookie('always');

    describe('read', () => {
      it('should read our cookie among others', () => {
        expect(auto.read(request({ cookie: `a=1; ${REFRESH_COOKIE_NAME}=tok_en-1; b=2` }))).toBe('tok_en-1');
      });

      it('should answer null without the cookie or with a value we never set', () => {
        expect(auto.read(request({}))).toBeNull();
        expect(auto.read(request({ cookie: 'other=1' }))).toBeNull();
        expect(auto.read(request({ cookie: `${REFRESH_COOKIE_NAME}=a%20b` }))).toBeNull();
        expect(auto.read(request({ cookie: `${REFRESH_COOKIE_NAME}=${'x'.repeat(513)}` }))).toBeNull();
      });

      it('should read only the __Secure- name in mode always', () => {
        expect(always.read(request({ cookie: `${REFRESH_COOKIE_NAME}=plain` }))).toBeNull();
        expect(always.read(request({ cookie: `${SECURE_REFRESH_COOKIE_NAME}=secure` }))).toBe('secure');
        expect(auto.read(request({ cookie: `${SECURE_REFRESH_COOKIE_NAME}=secure` }))).toBeNull();
      });
    });

    describe('set', () => {
      it('should set an HttpOnly, SameSite=Strict cookie on /api/auth for the refresh lifetime', () => {
        const { response, calls } = recordingResponse();
        auto.set(request({}), response, 'token', 604800);
        expect(calls).toEqual([
          [
            'cookie',
            REFRESH_COOKIE_NAME,
            'token',
            { httpOnly: true, secure: false, sameSite: 'strict', path: '/api/auth', maxAge: 604800000 },
          ],
        ]);
      });

      it('should mark the cookie Secure in mode auto when the request came over TLS', () => {
        const { response, calls } = recordingResponse();
        auto.set(request({}, true), response, 'token', 60);
        expect(calls[0][1]).toBe(REFRESH_COOKIE_NAME);
        expect(calls[0][3]).toMatchObject({ secure: true });
      });

      it('should always mark the cookie Secure, with the __Secure- name, in mode always (behind a TLS proxy)', () => {
        const { response, calls } = recordingResponse();
        always.set(request({}, false), response, 'token', 60);
        expect(calls[0][1]).toBe(SECURE_REFRESH_COOKIE_NAME);
        expect(calls[0][3]).toMatchObject({ secure: true });
      });
    });

    describe('clear', () => {
      it('should clear the cookie with the attributes it was set with', () => {
        const { response, calls } = recordingResponse();
        auto.clear(request({}), response);
        always.clear(request({}), response);
        expect(calls).toEqual([
          [
            'clearCookie',
            REFRESH_COOKIE_NAME,
            { httpOnly: true, secure: false, sameSite: 'strict', path: '/api/auth' },
          ],
          [
            'clearCookie',
            SECURE_REFRESH_COOKIE_NAME,
            { httpOnly: true, secure: true, sameSite: 'strict', path: '/api/auth' },
          ],
        ]);
      });
    });
  });
});

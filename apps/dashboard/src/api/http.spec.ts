import { errorMessage, forbiddenMessage, parseJson, stringifyJson } from './http';

describe('http', () => {
  describe(errorMessage.name, () => {
    it('should read Qdrant error bodies and plain-text answers', () => {
      expect(errorMessage(422, '{"status":{"error":"Validation error in JSON body: [x]"},"time":0}')).toBe(
        'Validation error in JSON body: [x]',
      );
      expect(errorMessage(401, 'Must provide an API key or an Authorization bearer token')).toBe(
        'Must provide an API key or an Authorization bearer token',
      );
      expect(errorMessage(502, '')).toBe('HTTP 502');
    });
  });

  describe(forbiddenMessage.name, () => {
    it('should say which permission is missing', () => {
      expect(forbiddenMessage('Forbidden: Global manage access is required')).toBe(
        'Permission missing: this needs manage (write) access, and you are signed in with read access. ' +
          '(Forbidden: Global manage access is required)',
      );
      expect(forbiddenMessage('Forbidden: something else')).toBe('Permission missing: Forbidden: something else');
    });

    it('should not call a user limited to collections read-only: it names the grants', () => {
      const grants = [
        { collection: 'alpha', access: 'rw' as const },
        { collection: 'beta', access: 'r' as const },
      ];
      const yours = 'you are limited to alpha (read and write), beta (read)';
      expect(forbiddenMessage('Forbidden: Manage access for this operation is required', grants)).toBe(
        `Permission missing: this needs manage access, which only administrators have; ${yours}. ` +
          '(Forbidden: Manage access for this operation is required)',
      );
      expect(forbiddenMessage('Forbidden: Write access to collection beta is required', grants)).toBe(
        `Permission missing: this needs write access to beta; ${yours}. (Forbidden: Write access to collection beta is required)`,
      );
      expect(forbiddenMessage('Forbidden: Access to collection gamma is required', grants)).toBe(
        `Permission missing: gamma is not among your collections; ${yours}. (Forbidden: Access to collection gamma is required)`,
      );
      expect(forbiddenMessage('Forbidden: Global access is required', grants)).toBe(
        `Permission missing: this needs access to every collection; ${yours}. (Forbidden: Global access is required)`,
      );
    });
  });

  describe(parseJson.name, () => {
    it('should keep integers beyond 2^53 exact where the engine gives the source text', () => {
      const parsed = parseJson('{"peer_id":17011486034537160721,"n":3,"f":0.5}') as Record<string, unknown>;
      expect(parsed.n).toBe(3);
      expect(parsed.f).toBe(0.5);
      // Node 20 has no source-text access (rounds), Node 22+ and the browsers do (exact, as a bigint).
      expect([17011486034537160721n, Number('17011486034537160721')]).toContain(parsed.peer_id);
    });
  });

  describe(stringifyJson.name, () => {
    it('should write bigints as raw JSON numbers, exactly', () => {
      expect(stringifyJson({ offset: 18446744073709551615n, limit: 10 })).toBe(
        '{"offset":18446744073709551615,"limit":10}',
      );
      expect(stringifyJson([-9007199254740993n])).toBe('[-9007199254740993]');
      expect(stringifyJson({ id: 18446744073709551600n }, 2)).toBe('{\n  "id": 18446744073709551600\n}');
    });

    it('should otherwise write what JSON.stringify writes, compact and indented', () => {
      const values: unknown[] = [
        { a: [1, 'x', null, true, { b: {} }, []], c: undefined, d: 'q"\n<', e: -0.5, f: Number.NaN, g: [undefined] },
        [],
        {},
        'text',
        3,
        null,
        { when: new Date(0) },
      ];
      for (const value of values) {
        expect(stringifyJson(value)).toBe(JSON.stringify(value));
        expect(stringifyJson(value, 2)).toBe(JSON.stringify(value, null, 2));
      }
    });
  });
});

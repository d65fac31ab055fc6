import * as path from 'node:path';
import { ConfigError, DEFAULTS, loadConfig } from './load-config';

function configErrorOf(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected loadConfig to throw a ConfigError');
}

describe('loadConfig', () => {
  it('should use the defaults for an empty environment', () => {
    const config = loadConfig({});

    expect(config).toEqual({
      http: { host: '0.0.0.0', port: 6333 },
      grpc: { host: '0.0.0.0', port: 6334 },
      dataDir: path.resolve('./storage'),
      snapshotsDir: path.resolve('./storage/snapshots'),
      logLevel: 'info',
      scrub: { intervalSeconds: 86400, mbPerSecond: 64 },
      auth: {
        adminEmail: undefined,
        adminPassword: undefined,
        jwtSecret: undefined,
        accessTtlSeconds: 900,
        refreshTtlSeconds: 604800,
        refreshReuseGraceSeconds: 10,
        apiKey: undefined,
        readOnlyApiKey: undefined,
        cookieSecure: 'auto',
      },
    });
    expect(path.isAbsolute(config.dataDir)).toBe(true);
    expect(DEFAULTS.dataDir).toBe('./storage');
  });

  it('should ignore variables that do not start with VECTORSTORE_', () => {
    expect(() => loadConfig({ PATH: '/usr/bin', HOME: '/root', vectorstore_foo: 'x' })).not.toThrow();
  });

  it('should merge every override over the defaults', () => {
    const config = loadConfig({
      VECTORSTORE_HTTP_PORT: '8080',
      VECTORSTORE_GRPC_PORT: ' 9090 ',
      VECTORSTORE_HOST: '127.0.0.1',
      VECTORSTORE_DATA_DIR: '/var/lib/vs',
      VECTORSTORE_SNAPSHOTS_DIR: '/backup/vs',
      VECTORSTORE_LOG_LEVEL: 'debug',
      VECTORSTORE_ADMIN_EMAIL: 'admin@example.com',
      VECTORSTORE_ADMIN_PASSWORD: 'correct horse battery',
      VECTORSTORE_JWT_SECRET: 's'.repeat(32),
      VECTORSTORE_ACCESS_TTL: '60',
      VECTORSTORE_REFRESH_TTL: '3600',
      VECTORSTORE_REFRESH_REUSE_GRACE: '0',
      VECTORSTORE_API_KEY: 'k'.repeat(16),
      VECTORSTORE_READ_ONLY_API_KEY: 'r'.repeat(20),
      VECTORSTORE_COOKIE_SECURE: 'always',
      VECTORSTORE_SCRUB_INTERVAL: '0',
      VECTORSTORE_SCRUB_MB_PER_SEC: '10',
    });

    expect(config).toEqual({
      http: { host: '127.0.0.1', port: 8080 },
      grpc: { host: '127.0.0.1', port: 9090 },
      dataDir: '/var/lib/vs',
      snapshotsDir: '/backup/vs',
      logLevel: 'debug',
      scrub: { intervalSeconds: 0, mbPerSecond: 10 },
      auth: {
        adminEmail: 'admin@example.com',
        adminPassword: 'correct horse battery',
        jwtSecret: 's'.repeat(32),
        accessTtlSeconds: 60,
        refreshTtlSeconds: 3600,
        refreshReuseGraceSeconds: 0,
        apiKey: 'k'.repeat(16),
        readOnlyApiKey: 'r'.repeat(20),
        cookieSecure: 'always',
      },
    });
  });

  it('should keep the defaults for variables that are not set', () => {
    const config = loadConfig({ VECTORSTORE_HTTP_PORT: '7000' });

    expect(config.http.port).toBe(7000);
    expect(config.grpc.port).toBe(6334);
    expect(config.http.host).toBe('0.0.0.0');
    expect(config.logLevel).toBe('info');
  });

  it('should resolve a relative data folder to an absolute path', () => {
    expect(loadConfig({ VECTORSTORE_DATA_DIR: 'data/x' }).dataDir).toBe(path.resolve('data/x'));
  });

  it('should put snapshots under the data folder unless VECTORSTORE_SNAPSHOTS_DIR says otherwise', () => {
    expect(loadConfig({ VECTORSTORE_DATA_DIR: '/d' }).snapshotsDir).toBe('/d/snapshots');
    expect(loadConfig({ VECTORSTORE_DATA_DIR: '/d', VECTORSTORE_SNAPSHOTS_DIR: 'snaps' }).snapshotsDir).toBe(
      path.resolve('snaps'),
    );
    expect(() => loadConfig({ VECTORSTORE_SNAPSHOTS_DIR: '' })).toThrow(/VECTORSTORE_SNAPSHOTS_DIR/);
  });

  it('should treat empty API keys as unset', () => {
    const config = loadConfig({ VECTORSTORE_API_KEY: '', VECTORSTORE_READ_ONLY_API_KEY: '' });

    expect(config.auth.apiKey).toBeUndefined();
    expect(config.auth.readOnlyApiKey).toBeUndefined();
  });

  it.each(['abc', '70000', '-1', '80.5', ''])('should reject the port %p', (port) => {
    const error = configErrorOf({ VECTORSTORE_HTTP_PORT: port });

    expect(error.problems.length).toBeGreaterThan(0);
    expect(error.problems.every((p) => p.startsWith('VECTORSTORE_HTTP_PORT='))).toBe(true);
  });

  it('should accept the port bounds 0 and 65535', () => {
    expect(loadConfig({ VECTORSTORE_HTTP_PORT: '0', VECTORSTORE_GRPC_PORT: '65535' })).toMatchObject({
      http: { port: 0 },
      grpc: { port: 65535 },
    });
  });

  it('should reject an unknown log level and name the allowed ones', () => {
    const error = configErrorOf({ VECTORSTORE_LOG_LEVEL: 'verbose' });

    expect(error.problems).toEqual([
      'VECTORSTORE_LOG_LEVEL="verbose": must be one of fatal, error, warn, info, debug, trace, silent',
    ]);
  });

  it('should reject an unknown cookie security mode and name the allowed ones', () => {
    const error = configErrorOf({ VECTORSTORE_COOKIE_SECURE: 'yes' });

    expect(error.problems).toEqual(['VECTORSTORE_COOKIE_SECURE="yes": must be one of auto, always']);
  });

  it('should reject an unknown VECTORSTORE_ variable', () => {
    const error = configErrorOf({ VECTORSTORE_FOO: 'bar' });

    expect(error.problems).toEqual(['VECTORSTORE_FOO: unknown setting']);
  });

  it('should ignore the test tooling variables (VECTORSTORE_TEST_*), which the server never reads', () => {
    const error = configErrorOf({ VECTORSTORE_TEST_CHROMIUM: '/usr/bin/chromium', VECTORSTORE_FOO: 'bar' });

    expect(error.problems).toEqual(['VECTORSTORE_FOO: unknown setting']);
  });

  it('should reject a non-positive TTL', () => {
    const error = configErrorOf({ VECTORSTORE_ACCESS_TTL: '0' });

    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]).toMatch(/^VECTORSTORE_ACCESS_TTL=0: /);
  });

  it.each([
    ['-1', /must not be less than 0/],
    ['301', /at most 300 seconds/],
    ['1.5', /integer number of seconds/],
  ])('should reject VECTORSTORE_REFRESH_REUSE_GRACE=%s', (value, rule) => {
    const error = configErrorOf({ VECTORSTORE_REFRESH_REUSE_GRACE: value });

    expect(error.problems).toHaveLength(1);
    expect(error.problems[0].startsWith('VECTORSTORE_REFRESH_REUSE_GRACE=')).toBe(true);
    expect(error.problems[0]).toMatch(rule);
  });

  it('should list every problem at once', () => {
    const error = configErrorOf({
      VECTORSTORE_HTTP_PORT: 'abc',
      VECTORSTORE_GRPC_PORT: '70000',
      VECTORSTORE_LOG_LEVEL: 'loud',
      VECTORSTORE_JWT_SECRET: 'short-secret',
      VECTORSTORE_API_KEY: 'short-key',
      VECTORSTORE_FOO: '1',
    });

    const names = error.problems.map((p) => p.split(/[=:]/)[0]);
    expect(new Set(names)).toEqual(
      new Set([
        'VECTORSTORE_HTTP_PORT',
        'VECTORSTORE_GRPC_PORT',
        'VECTORSTORE_LOG_LEVEL',
        'VECTORSTORE_JWT_SECRET',
        'VECTORSTORE_API_KEY',
        'VECTORSTORE_FOO',
      ]),
    );
    expect(error.problems).toContain('VECTORSTORE_JWT_SECRET=(hidden): must be at least 32 characters (256 bits)');
    expect(error.problems).toContain('VECTORSTORE_API_KEY=(hidden): must be at least 16 characters');
    expect(error.problems.find((p) => p.startsWith('VECTORSTORE_GRPC_PORT=70000:'))).toMatch(/greater than 65535/);
    expect(error.problems).toContain('VECTORSTORE_HTTP_PORT="abc": must be an integer');
    expect(error.problems).toContain('VECTORSTORE_FOO: unknown setting');
    for (const problem of error.problems) {
      expect(error.message).toContain(problem);
    }
    expect(error.message.startsWith('Invalid configuration:')).toBe(true);
    expect(error.name).toBe('ConfigError');
  });

  it('should accept a JWT secret of exactly 32 characters and an API key of exactly 16', () => {
    expect(() =>
      loadConfig({ VECTORSTORE_JWT_SECRET: 'x'.repeat(32), VECTORSTORE_API_KEY: 'y'.repeat(16) }),
    ).not.toThrow();
  });

  it('should not echo secret values in the messages', () => {
    const secrets = {
      VECTORSTORE_JWT_SECRET: 'jwt-TOPSECRET-1',
      VECTORSTORE_API_KEY: 'api-TOPSECRET-2',
      VECTORSTORE_READ_ONLY_API_KEY: 'ro-TOPSECRET-3',
      VECTORSTORE_ADMIN_PASSWORD: 'pw-TOPSECRET4',
    };
    const error = configErrorOf({ ...secrets, VECTORSTORE_ADMIN_PASSWORD: 'pw-TOP' });

    expect(error.problems).toHaveLength(4);
    for (const value of [...Object.values(secrets), 'pw-TOP']) {
      expect(error.message).not.toContain(value);
    }
    expect(error.message).not.toContain('TOPSECRET');
    expect(error.message).not.toContain('pw-TOP');
  });

  it('should not echo the value of an unknown variable, which may be a mistyped secret', () => {
    const error = configErrorOf({ VECTORSTORE_JWT_SECRETS: 'do-not-print-me' });

    expect(error.message).not.toContain('do-not-print-me');
  });
});

import { ConfigError, loadConfig } from './load-config';

function configErrorOf(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected loadConfig to throw a ConfigError');
}

const SECRET = 'c'.repeat(32);
const JWT = 'j'.repeat(32);

/** The smallest valid cluster environment, with overrides (undefined removes a variable). */
function clusterEnv(overrides: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: Record<string, string | undefined> = {
    VECTORSTORE_CLUSTER_ENABLED: 'true',
    VECTORSTORE_ETCD_ENDPOINTS: 'http://etcd:2379',
    VECTORSTORE_CLUSTER_SECRET: SECRET,
    VECTORSTORE_JWT_SECRET: JWT,
    VECTORSTORE_ADVERTISE_HOST: '10.0.0.1',
    VECTORSTORE_API_KEY: 'cluster-api-key-0123456789',
    ...overrides,
  };
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined));
}

describe('loadConfig (cluster mode)', () => {
  describe('standalone', () => {
    it('should have no cluster section by default', () => {
      expect(loadConfig({}).cluster).toBeUndefined();
    });

    it('should stay standalone with VECTORSTORE_CLUSTER_ENABLED=false', () => {
      expect(loadConfig({ VECTORSTORE_CLUSTER_ENABLED: 'false' }).cluster).toBeUndefined();
    });

    it.each(['yes', 'TRUE', '1', ''])('should reject VECTORSTORE_CLUSTER_ENABLED=%p', (value) => {
      const error = configErrorOf({ VECTORSTORE_CLUSTER_ENABLED: value });

      expect(error.problems).toEqual([`VECTORSTORE_CLUSTER_ENABLED=${JSON.stringify(value)}: must be true or false`]);
    });

    it.each([
      ['VECTORSTORE_ETCD_ENDPOINTS', 'http://etcd:2379'],
      ['VECTORSTORE_ETCD_USERNAME', 'root'],
      ['VECTORSTORE_ETCD_PASSWORD', 'pw'],
      ['VECTORSTORE_ETCD_TLS_CA', '/ca.pem'],
      ['VECTORSTORE_ETCD_TIMEOUT_MS', '1000'],
      ['VECTORSTORE_CLUSTER_NAME', 'prod'],
      ['VECTORSTORE_P2P_PORT', '7000'],
      ['VECTORSTORE_P2P_HOST', '10.0.0.1'],
      ['VECTORSTORE_ADVERTISE_HOST', '10.0.0.1'],
      ['VECTORSTORE_CLUSTER_SECRET', SECRET],
      ['VECTORSTORE_LEASE_TTL', '2'],
      ['VECTORSTORE_DEAD_GRACE', '5'],
      ['VECTORSTORE_TRANSFER_LIMIT', '2'],
      ['VECTORSTORE_AUTO_REPLICATE_AFTER', '60'],
    ])('should refuse %s without cluster mode', (name, value) => {
      const error = configErrorOf({ [name]: value, VECTORSTORE_CLUSTER_ENABLED: 'false' });

      expect(error.problems).toEqual([`${name}: only used in cluster mode (set VECTORSTORE_CLUSTER_ENABLED=true)`]);
    });

    it('should refuse cluster-only variables when VECTORSTORE_CLUSTER_ENABLED is unset', () => {
      const error = configErrorOf({ VECTORSTORE_LEASE_TTL: '2', VECTORSTORE_CLUSTER_NAME: 'prod' });

      expect(error.problems).toEqual([
        'VECTORSTORE_CLUSTER_NAME: only used in cluster mode (set VECTORSTORE_CLUSTER_ENABLED=true)',
        'VECTORSTORE_LEASE_TTL: only used in cluster mode (set VECTORSTORE_CLUSTER_ENABLED=true)',
      ]);
    });

    it('should accept the variables shared with standalone mode, such as the JWT secret', () => {
      expect(loadConfig({ VECTORSTORE_JWT_SECRET: JWT }).cluster).toBeUndefined();
    });

    it('should report a cluster-only variable together with an invalid standalone one', () => {
      const error = configErrorOf({ VECTORSTORE_HTTP_PORT: 'abc', VECTORSTORE_LEASE_TTL: '2' });

      expect(error.problems).toEqual([
        'VECTORSTORE_HTTP_PORT="abc": must be an integer',
        'VECTORSTORE_LEASE_TTL: only used in cluster mode (set VECTORSTORE_CLUSTER_ENABLED=true)',
      ]);
    });
  });

  describe('defaults', () => {
    it('should fill in the cluster defaults', () => {
      const config = loadConfig(clusterEnv());

      expect(config.cluster).toEqual({
        etcd: {
          endpoints: ['http://etcd:2379'],
          username: undefined,
          password: undefined,
          tlsCaFile: undefined,
          timeoutMs: 5000,
        },
        name: 'default',
        p2p: { host: '0.0.0.0', port: 6335 },
        advertiseHost: '10.0.0.1',
        secret: SECRET,
        leaseTtlSeconds: 10,
        deadGraceSeconds: 10,
        transferLimit: 1,
      });
    });

    it('should default the dead grace to the lease TTL', () => {
      const config = loadConfig(clusterEnv({ VECTORSTORE_LEASE_TTL: '2' }));

      expect(config.cluster?.leaseTtlSeconds).toBe(2);
      expect(config.cluster?.deadGraceSeconds).toBe(2);
    });

    it('should take every override', () => {
      const config = loadConfig(
        clusterEnv({
          VECTORSTORE_ETCD_ENDPOINTS: 'https://e1:2379,https://e2:2379,https://[::1]:2379',
          VECTORSTORE_ETCD_USERNAME: 'root',
          VECTORSTORE_ETCD_PASSWORD: 'pw',
          VECTORSTORE_ETCD_TLS_CA: '/etc/ca.pem',
          VECTORSTORE_ETCD_TIMEOUT_MS: '250',
          VECTORSTORE_CLUSTER_NAME: 'prod-1.eu_west',
          VECTORSTORE_P2P_PORT: '7000',
          VECTORSTORE_P2P_HOST: '10.0.0.2',
          VECTORSTORE_ADVERTISE_HOST: 'peer-2.internal',
          VECTORSTORE_LEASE_TTL: '3',
          VECTORSTORE_DEAD_GRACE: '30',
          VECTORSTORE_TRANSFER_LIMIT: '2',
          VECTORSTORE_AUTO_REPLICATE_AFTER: '600',
        }),
      );

      expect(config.cluster).toEqual({
        etcd: {
          endpoints: ['https://e1:2379', 'https://e2:2379', 'https://[::1]:2379'],
          username: 'root',
          password: 'pw',
          tlsCaFile: '/etc/ca.pem',
          timeoutMs: 250,
        },
        name: 'prod-1.eu_west',
        p2p: { host: '10.0.0.2', port: 7000 },
        advertiseHost: 'peer-2.internal',
        secret: SECRET,
        leaseTtlSeconds: 3,
        deadGraceSeconds: 30,
        transferLimit: 2,
        autoReplicateAfterSeconds: 600,
      });
    });

    it('should keep the public API settings beside the cluster section', () => {
      const config = loadConfig(clusterEnv({ VECTORSTORE_HTTP_PORT: '8080' }));

      expect(config.http.port).toBe(8080);
      expect(config.auth.jwtSecret).toBe(JWT);
    });
  });

  describe('required variables', () => {
    it.each([
      ['VECTORSTORE_ETCD_ENDPOINTS', 'where the cluster metadata lives'],
      ['VECTORSTORE_CLUSTER_SECRET', 'peers authenticate each other with it'],
      ['VECTORSTORE_JWT_SECRET', 'every peer must accept the same access tokens'],
    ])('should require %s and say why', (name, why) => {
      const error = configErrorOf(clusterEnv({ [name]: undefined }));

      expect(error.problems).toEqual([`${name}: required in cluster mode (${why})`]);
    });

    it('should list every missing variable at once', () => {
      const error = configErrorOf({ VECTORSTORE_CLUSTER_ENABLED: 'true' });

      expect(error.problems.map((p) => p.split(':')[0])).toEqual([
        'VECTORSTORE_ETCD_ENDPOINTS',
        'VECTORSTORE_CLUSTER_SECRET',
        'VECTORSTORE_JWT_SECRET',
        'VECTORSTORE_API_KEY',
        'VECTORSTORE_ADVERTISE_HOST',
      ]);
    });

    it('should list the missing cluster variables together with other invalid ones', () => {
      // ConfigError: "the message lists every bad variable".
      const error = configErrorOf(clusterEnv({ VECTORSTORE_ETCD_ENDPOINTS: undefined, VECTORSTORE_HTTP_PORT: 'abc' }));

      expect(error.problems).toEqual([
        'VECTORSTORE_HTTP_PORT="abc": must be an integer',
        'VECTORSTORE_ETCD_ENDPOINTS: required in cluster mode (where the cluster metadata lives)',
      ]);
    });
  });

  describe('advertise host', () => {
    it.each(['0.0.0.0', '::', '[::]'])('should be required when the peer service listens on %s', (host) => {
      const error = configErrorOf(clusterEnv({ VECTORSTORE_ADVERTISE_HOST: undefined, VECTORSTORE_P2P_HOST: host }));

      expect(error.problems).toEqual([
        `VECTORSTORE_ADVERTISE_HOST: required in cluster mode when the peer service listens on ${host} (the address other peers dial)`,
      ]);
    });

    it('should be required when VECTORSTORE_HOST is the default 0.0.0.0 and no P2P host is set', () => {
      const error = configErrorOf(clusterEnv({ VECTORSTORE_ADVERTISE_HOST: undefined }));

      expect(error.problems).toHaveLength(1);
      expect(error.problems[0]).toMatch(/^VECTORSTORE_ADVERTISE_HOST: required in cluster mode .* 0\.0\.0\.0 /);
    });

    it('should default to VECTORSTORE_HOST when that is a concrete address', () => {
      const config = loadConfig(clusterEnv({ VECTORSTORE_ADVERTISE_HOST: undefined, VECTORSTORE_HOST: '10.1.2.3' }));

      expect(config.cluster?.advertiseHost).toBe('10.1.2.3');
      expect(config.cluster?.p2p.host).toBe('10.1.2.3');
    });

    it('should default to VECTORSTORE_P2P_HOST when the public host is a wildcard', () => {
      const config = loadConfig(
        clusterEnv({ VECTORSTORE_ADVERTISE_HOST: undefined, VECTORSTORE_P2P_HOST: 'peer-1.internal' }),
      );

      expect(config.http.host).toBe('0.0.0.0');
      expect(config.cluster?.p2p.host).toBe('peer-1.internal');
      expect(config.cluster?.advertiseHost).toBe('peer-1.internal');
    });

    it('should take an explicit advertise host over a concrete P2P host', () => {
      const config = loadConfig(clusterEnv({ VECTORSTORE_P2P_HOST: '10.0.0.9', VECTORSTORE_ADVERTISE_HOST: 'nat.ip' }));

      expect(config.cluster?.advertiseHost).toBe('nat.ip');
    });
  });

  describe('etcd endpoints', () => {
    it.each([
      ['a host without scheme', 'etcd:2379'],
      ['another scheme', 'grpc://etcd:2379'],
      ['a trailing comma', 'http://etcd:2379,'],
      ['an empty entry', 'http://a:2379,,http://b:2379'],
      ['a space after the comma', 'http://a:2379, http://b:2379'],
      ['a path', 'http://etcd:2379/v3'],
      ['an empty host', 'http://'],
      ['an empty list', ''],
    ])('should reject %s', (_, endpoints) => {
      const error = configErrorOf(clusterEnv({ VECTORSTORE_ETCD_ENDPOINTS: endpoints }));

      expect(error.problems).toEqual([
        `VECTORSTORE_ETCD_ENDPOINTS=${JSON.stringify(endpoints)}: must be a comma-separated list of http(s)://host:port`,
      ]);
    });

    it.each([
      ['a port that is not a number', 'http://etcd:abc'],
      ['a port out of range', 'http://etcd:99999'],
      ['two ports', 'http://etcd:1:2'],
    ])('should reject an endpoint with %s', (_, endpoints) => {
      const error = configErrorOf(clusterEnv({ VECTORSTORE_ETCD_ENDPOINTS: endpoints }));

      expect(error.problems).toHaveLength(1);
      expect(error.problems[0]).toMatch(/^VECTORSTORE_ETCD_ENDPOINTS=/);
    });

    it('should split a valid list in order', () => {
      const config = loadConfig(clusterEnv({ VECTORSTORE_ETCD_ENDPOINTS: 'http://c:1,http://a:2,https://b:3' }));

      expect(config.cluster?.etcd.endpoints).toEqual(['http://c:1', 'http://a:2', 'https://b:3']);
    });
  });

  describe('value rules', () => {
    it('should hide a short cluster secret and name its minimum length', () => {
      const error = configErrorOf(clusterEnv({ VECTORSTORE_CLUSTER_SECRET: 'TOPSECRET-short' }));

      expect(error.problems).toEqual(['VECTORSTORE_CLUSTER_SECRET=(hidden): must be at least 32 characters']);
      expect(error.message).not.toContain('TOPSECRET');
    });

    it('should accept a cluster secret of exactly 32 characters', () => {
      expect(loadConfig(clusterEnv({ VECTORSTORE_CLUSTER_SECRET: 'x'.repeat(32) })).cluster?.secret).toBe(
        'x'.repeat(32),
      );
    });

    it.each([['VECTORSTORE_ETCD_USERNAME'], ['VECTORSTORE_ETCD_PASSWORD']])(
      'should refuse %s without the other one',
      (name) => {
        const error = configErrorOf(clusterEnv({ [name]: 'root-or-secret' }));

        expect(error.problems).toEqual([
          'VECTORSTORE_ETCD_USERNAME and VECTORSTORE_ETCD_PASSWORD: set both or neither',
        ]);
      },
    );

    it('should require the API key in cluster mode', () => {
      const error = configErrorOf(clusterEnv({ VECTORSTORE_API_KEY: undefined }));

      expect(error.problems).toEqual([
        'VECTORSTORE_API_KEY: required in cluster mode (every peer must accept the same API key)',
      ]);
    });

    it('should refuse a TLS CA with http endpoints', () => {
      const error = configErrorOf(clusterEnv({ VECTORSTORE_ETCD_TLS_CA: '/etc/ca.pem' }));

      expect(error.problems).toEqual([
        'VECTORSTORE_ETCD_TLS_CA: only used with https:// endpoints (VECTORSTORE_ETCD_ENDPOINTS)',
      ]);
    });

    it('should hide an invalid etcd password', () => {
      const error = configErrorOf(clusterEnv({ VECTORSTORE_ETCD_USERNAME: 'root', VECTORSTORE_ETCD_PASSWORD: '' }));

      expect(error.problems).toHaveLength(1);
      expect(error.problems[0]).toMatch(/^VECTORSTORE_ETCD_PASSWORD=\(hidden\): /);
    });

    it.each([
      ['VECTORSTORE_LEASE_TTL', '0'],
      ['VECTORSTORE_LEASE_TTL', '3601'],
      ['VECTORSTORE_LEASE_TTL', '1.5'],
      ['VECTORSTORE_DEAD_GRACE', '0'],
      ['VECTORSTORE_ETCD_TIMEOUT_MS', '99'],
      ['VECTORSTORE_ETCD_TIMEOUT_MS', '600001'],
      ['VECTORSTORE_P2P_PORT', '65536'],
      ['VECTORSTORE_P2P_PORT', 'p2p'],
      ['VECTORSTORE_CLUSTER_NAME', 'a/b'],
      ['VECTORSTORE_CLUSTER_NAME', 'x'.repeat(65)],
      ['VECTORSTORE_CLUSTER_NAME', ''],
      ['VECTORSTORE_ADVERTISE_HOST', ''],
      ['VECTORSTORE_P2P_HOST', ''],
    ])('should reject %s=%p', (name, value) => {
      const error = configErrorOf(clusterEnv({ [name]: value }));

      expect(error.problems).toHaveLength(1);
      expect(error.problems[0].startsWith(`${name}=`)).toBe(true);
    });

    it.each([
      ['VECTORSTORE_LEASE_TTL', '1', 'leaseTtlSeconds', 1],
      ['VECTORSTORE_LEASE_TTL', '3600', 'leaseTtlSeconds', 3600],
      ['VECTORSTORE_P2P_PORT', '0', 'p2p', { host: '0.0.0.0', port: 0 }],
    ])('should accept the bound %s=%s', (name, value, field, expected) => {
      const config = loadConfig(clusterEnv({ [name]: value }));

      expect(config.cluster?.[field as 'leaseTtlSeconds' | 'p2p']).toEqual(expected);
    });
  });
});

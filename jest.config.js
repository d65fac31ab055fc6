// Two projects: fast in-process specs, and e2e specs that boot the real server as a child process.
const moduleNameMapper = {
  '^@vectorstore/(common|config|persistence|collections|engine|auth|points|snapshots|cluster|replication)$':
    '<rootDir>/libs/$1/src',
  '^@vectorstore/(common|config|persistence|collections|engine|auth|points|snapshots|cluster|replication)/(.*)$':
    '<rootDir>/libs/$1/src/$2',
};
const transform = { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.jest.json' }] };
const shared = {
  rootDir: __dirname,
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper,
  transform,
};

module.exports = {
  // e2e suites boot real servers; jest 29 reads the timeout only at the top level.
  testTimeout: 60000,
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: [
        '<rootDir>/libs/**/*.spec.ts',
        '<rootDir>/apps/**/*.spec.ts',
        '<rootDir>/test/kernels/**/*.spec.ts',
        '<rootDir>/test/recall/**/*.spec.ts',
        '<rootDir>/test/compat/**/*.spec.ts',
        '<rootDir>/test/lint/**/*.spec.ts',
        '<rootDir>/bench/**/*.spec.ts',
      ],
    },
    {
      ...shared,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
    },
  ],
};

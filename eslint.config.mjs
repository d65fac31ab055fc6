// Lint: eslint's and typescript-eslint's recommended rules, prettier for layout, and the layer rules of
// docs/architecture.md as import restrictions (one place that says which layer may import which).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

const transportPackages = [
  { group: ['@grpc/*'], message: 'Libraries are transport-neutral: gRPC lives in apps/server.' },
  {
    group: ['@nestjs/microservices', '@nestjs/platform-express'],
    message: 'Libraries are transport-neutral: transports live in apps/server.',
  },
  { group: ['express', 'express/*'], message: 'Libraries are transport-neutral: HTTP lives in apps/server.' },
];
const noApps = { regex: '(^|/)apps/', message: 'Libraries never import the app.' };
const noRelativeIntoAnotherPackage = {
  regex: '^\\.\\.?/(.*/)?(libs|apps|src)/',
  message: 'Reach another library through its entry point (@vectorstore/<name>), not a relative path.',
};
const libraryEntryPointsOnly = {
  group: ['@vectorstore/*/**'],
  message:
    'Import a library through its entry point (@vectorstore/<name>); export what you need from its src/index.ts.',
};

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'build/',
      'coverage/',
      'storage/',
      'apps/server/src/grpc/generated/',
      'assembly/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A promise nobody awaits loses its error: in a server that is a silent failure or a crash.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      'no-duplicate-imports': ['error', { allowSeparateTypeImports: true }],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    languageOptions: {
      globals: {
        require: 'readonly',
        module: 'writable',
        process: 'readonly',
        console: 'readonly',
        __dirname: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Tests load the official clients' CommonJS builds with require() on purpose.
    files: ['test/**/*.ts', '**/*.spec.ts'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  // Layer rules. Later blocks override earlier ones for the same files, so each block lists its whole set.
  {
    files: ['apps/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [libraryEntryPointsOnly, { ...noRelativeIntoAnotherPackage, regex: '(^|/)libs/' }] },
      ],
    },
  },
  {
    files: ['libs/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [...transportPackages, noApps, noRelativeIntoAnotherPackage, libraryEntryPointsOnly] },
      ],
    },
  },
  {
    files: ['libs/engine/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...transportPackages,
            noApps,
            noRelativeIntoAnotherPackage,
            {
              group: ['@vectorstore/*', '@vectorstore/*/**'],
              message: 'libs/engine is the bottom layer: it imports no other library.',
            },
          ],
        },
      ],
    },
  },
);

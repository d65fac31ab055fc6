// Lint: eslint's and typescript-eslint's recommended rules, prettier for layout, and the layer rules of
// docs/architecture.md as import restrictions (the one place that says which layer may import which).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

// Which library may import which: the layers, bottom first. scripts/check-workspace.mjs checks that every folder
// under libs/ is listed here; test/lint/layer-rules.spec.ts tries a forbidden and an allowed import of each kind.
export const LIBRARY_DEPENDENCIES = {
  common: [],
  engine: [],
  persistence: [],
  config: ['common'],
  collections: ['common', 'persistence'],
  auth: ['common', 'config', 'persistence'],
  points: ['common', 'engine', 'persistence', 'collections'],
  snapshots: ['common', 'persistence', 'config', 'collections', 'points'],
  cluster: ['common', 'config', 'collections', 'auth'],
  replication: ['common', 'collections', 'points'],
};

const SOURCE_FILES = '**/*.{ts,tsx,mts,cts,js,mjs,cjs}';
const TEST_FILES = ['**/*.spec.ts', '**/testing/**'];

const transportPackages = [
  { group: ['@grpc/*'], message: 'Libraries are transport-neutral: gRPC lives in apps/server.' },
  {
    group: [
      '@nestjs/microservices',
      '@nestjs/microservices/*',
      '@nestjs/platform-express',
      '@nestjs/platform-express/*',
    ],
    message: 'Libraries are transport-neutral: transports live in apps/server.',
  },
  {
    regex: '^(express|express-serve-static-core|body-parser)(/|$)',
    message: 'Libraries are transport-neutral: HTTP lives in apps/server.',
  },
];
const noApps = { regex: '(^|/)apps(/|$)', message: 'Libraries never import the app.' };
const noPathIntoAnotherPackage = {
  // A relative path that climbs into another library's (or the app's) folder, or a bare path through baseUrl.
  regex: '^(\\.\\.?/(.*/)?(libs|apps|src)(/|$)|(libs|apps|test|bench|dist)(/|$))',
  message: 'Reach another library through its entry point (@vectorstore/<name>), not a path.',
};
const libraryEntryPointsOnly = {
  group: ['@vectorstore/*/**'],
  message:
    'Import a library through its entry point (@vectorstore/<name>); export what you need from its src/index.ts.',
};
const noTestHelpers = {
  regex: '(^|/)(testing|test|bench)(/|$)',
  message: 'Production code never imports test helpers (testing/, test/, bench/).',
};
// import() and import('…').Type resolve modules too: without this they would slip past the rules above.
const noDynamicImports = [
  'error',
  { selector: 'ImportExpression', message: 'Import statically, so that the layer rules can see it.' },
  { selector: 'TSImportType', message: 'Import the type statically, so that the layer rules can see it.' },
];

function libraryPatterns(library, allowed, { production }) {
  const forbidden = Object.keys(LIBRARY_DEPENDENCIES).filter((other) => !allowed.includes(other));
  return [
    ...transportPackages,
    noApps,
    noPathIntoAnotherPackage,
    libraryEntryPointsOnly,
    {
      // A library's own entry point is forbidden too: inside a library, import the file.
      group: forbidden.map((other) => `@vectorstore/${other}`),
      message:
        allowed.length === 0
          ? `libs/${library} is a bottom layer: it imports no other library (and reaches its own files by path).`
          : `libs/${library} may import only ${allowed.map((name) => `@vectorstore/${name}`).join(', ')} (and reaches its own files by path).`,
    },
    ...(production ? [noTestHelpers] : []),
  ];
}

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
    files: ['**/*.ts', '**/*.tsx'],
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
    languageOptions: { globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Tests load the official clients' CommonJS builds with require() on purpose.
    files: ['test/**/*.ts', '**/*.spec.ts'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  // Layer rules (docs/architecture.md). Later blocks replace earlier ones for the same rule and file, so each block
  // lists its whole set.
  {
    files: [`apps/${SOURCE_FILES}`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            libraryEntryPointsOnly,
            {
              regex: '(^|/)libs(/|$)|^(test|bench|dist)(/|$)',
              message: 'Reach a library through its entry point (@vectorstore/<name>), not a path.',
            },
            noTestHelpers,
          ],
        },
      ],
      'no-restricted-syntax': noDynamicImports,
    },
  },
  {
    // The dashboard (apps/dashboard, its own tsconfig) is a browser client of the REST API, bundled by esbuild: it
    // imports only its own files and preact, never the server, a library or a Node module.
    files: ['apps/dashboard/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!preact(/|$)|\\.\\.?/)',
              message: 'The dashboard imports only its own files and preact: it talks to the server over HTTP.',
            },
            {
              regex: '(^|/)(server|libs|test|bench|dist)(/|$)',
              message: 'The dashboard imports only its own files and preact: it talks to the server over HTTP.',
            },
          ],
        },
      ],
    },
  },
  ...Object.entries(LIBRARY_DEPENDENCIES).flatMap(([library, allowed]) => [
    {
      files: [`libs/${library}/${SOURCE_FILES}`],
      rules: {
        'no-restricted-imports': ['error', { patterns: libraryPatterns(library, allowed, { production: true }) }],
        'no-restricted-syntax': noDynamicImports,
      },
    },
    {
      // Specs and test helpers may use test helpers; every other rule holds for them too.
      files: TEST_FILES.map((pattern) => `libs/${library}/${pattern}`),
      rules: {
        'no-restricted-imports': ['error', { patterns: libraryPatterns(library, allowed, { production: false }) }],
      },
    },
  ]),
);

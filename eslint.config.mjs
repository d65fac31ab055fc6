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

// Which library may import which: the layers, bottom first. scripts/check-workspace.mjs checks that every folder
// under libs/ is listed here.
export const LIBRARY_DEPENDENCIES = {
  common: [],
  engine: [],
  persistence: [],
  config: ['common'],
  collections: ['common', 'persistence'],
  auth: ['common', 'config', 'persistence'],
  points: ['common', 'engine', 'persistence', 'collections'],
  snapshots: ['common', 'persistence'],
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
  // Layer rules (docs/architecture.md): the app imports libraries through their entry points; each library imports
  // only the libraries listed for it below, through their entry points, and no transport.
  {
    files: ['apps/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [libraryEntryPointsOnly, { ...noRelativeIntoAnotherPackage, regex: '(^|/)libs/' }] },
      ],
    },
  },
  ...Object.entries(LIBRARY_DEPENDENCIES).map(([library, allowed]) => {
    const forbidden = Object.keys(LIBRARY_DEPENDENCIES).filter(
      (other) => other !== library && !allowed.includes(other),
    );
    return {
      files: [`libs/${library}/**/*.ts`],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              ...transportPackages,
              noApps,
              noRelativeIntoAnotherPackage,
              libraryEntryPointsOnly,
              ...(forbidden.length === 0
                ? []
                : [
                    {
                      group: forbidden.map((other) => `@vectorstore/${other}`),
                      message:
                        allowed.length === 0
                          ? `libs/${library} is a bottom layer: it imports no other library.`
                          : `libs/${library} may import only ${allowed.map((name) => `@vectorstore/${name}`).join(', ')}.`,
                    },
                  ]),
            ],
          },
        ],
      },
    };
  }),
);

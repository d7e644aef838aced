// ESLint: a small set of rules that catch real bugs or keep one style where the compiler does not.
// TypeScript files are linted with type information (projectService, the repository's tsconfig.json) for the
// one rule that needs it, no-floating-promises: an unawaited promise in a workflow or an activity is a lost
// error. Formatting is Prettier's job (.prettierrc.json), not ESLint's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'tools/',
      'models/',
      'data/',
      'results/',
      'test/fixtures/',
      '.venv-notebook/',
      '.bench-venv/',
      '.venv-vllm/',
      '.venv-vllm',
    ],
  },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-var': 'error',
      'prefer-const': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      // Loose JSON (report specs, test fixtures) is typed `any` on purpose in a few places, each marked.
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    // Plain JavaScript: the CLI launcher, setup, the browser script of the Lines view, the mocha reporter.
    files: ['**/*.{js,mjs,cjs}'],
    ...js.configs.recommended,
    rules: {
      ...js.configs.recommended.rules,
      // Node and browser globals differ per file; the scripts run in CI (setup, the browser test) and fail loudly.
      'no-undef': 'off',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-unused-vars': ['error', { caughtErrors: 'none' }],
    },
  },
  {
    // The Lines view's scripts are classic scripts inlined one after another: each hands the next its global.
    files: ['analysis/explorer/*.js'],
    languageOptions: { sourceType: 'script' },
  },
);

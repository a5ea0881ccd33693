// `npm run lint` (part of `npm test`): typescript-eslint's recommended rules, and the layering the code
// keeps: the domain knows nothing of HTTP, the API layer or the job engine; workflows stay deterministic.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const outsideTheDomain = ['**/temporal/**', '**/http/**', '**/api/**', '**/mcp/**', '**/runtime/**', '@temporalio/*', 'koa', '@koa/*'];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', performance: 'readonly' } },
  },
  {
    // The web pages' scripts run in the browser.
    files: ['src/web/assets/**/*.js'],
    languageOptions: { globals: { window: 'readonly', document: 'readonly', fetch: 'readonly', XMLHttpRequest: 'readonly' } },
  },
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
  {
    files: ['src/domain/**/*.ts', 'src/policies/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: outsideTheDomain,
              message:
                'src/domain and src/policies must not depend on the job engine, HTTP, the API, MCP or the runtime: declare a port in src/domain and implement it outside.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.\\./src/(?!domain/jobs/)',
              message: 'Workflows run in a deterministic sandbox: import activity types, the job ids and ./activity-options.ts only.',
            },
            {
              group: ['node:*', '@temporalio/client', '@temporalio/worker', '@temporalio/activity'],
              message: 'Not in the workflow sandbox.',
            },
          ],
        },
      ],
    },
  },
);

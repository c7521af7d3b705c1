// The linter: ESLint's and typescript-eslint's recommended rules over the whole tree, `any`
// refused. Formatting is Prettier's (.prettierrc.json); these rules judge code, not layout.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    ignores: [
      'node_modules/',
      'dist/',
      '.dist-build-*/',
      'cdktf.out/',
      '.fleetform/',
      'coverage/',
      'test-artifacts/',
      'src/api/generated/',
      'src/provider/protocol/generated/',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx,mts,cts}'],
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      // An unused name is an error; a leading underscore says it is unused on purpose (a callback's position).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    files: ['**/*.{js,cjs}'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { sourceType: 'module', globals: { ...globals.node } },
  },
  {
    files: ['__tests__/**'],
    languageOptions: { globals: { ...globals.jest } },
  },
  {
    files: ['web/**'],
    languageOptions: { globals: { ...globals.browser } },
  },
);

import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  // The automaton plugin's published code, kept byte for byte (test/fixtures/automaton/README.md).
  { ignores: ['node_modules/', 'dist/', 'data/', '.cache/', 'test/fixtures/automaton/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['error'] }],
    },
  },
  { files: ['scripts/**', 'test/**', 'bench/**'], rules: { 'no-console': 'off' } },
  // CommonJS configuration files (.dependency-cruiser.cjs).
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs', globals: { module: 'writable' } } },
);

import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules', 'data', 'coverage', 'web/dist', 'dist', '.build-test-*'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': ['error', { allow: ['error', 'warn'] }],
    },
  },
  // Process entries talk to people on the terminal.
  { files: ['src/server.ts', 'src/cli/**', 'scripts/**', 'bench/**', 'bin/**'], rules: { 'no-console': 'off' } },
);

import tseslint from 'typescript-eslint';

/**
 * Module boundaries: a module (src/modules/<feature>/) reaches another module only through that module's
 * <feature>.service.ts (its domain calls and the read functions it documents), its <feature>.schemas.ts (the shapes of
 * its requests and answers) or audit/actor.ts (who made a change, which every module hands to the audit log): never
 * another module's repository, routes, caches or helpers. The same holds for code outside the modules (plugins, CLI,
 * server); modules/index.ts, modules/state.ts and jobs/registry.ts are where the modules are put together.
 */
const boundary = (reach) => [
  'error',
  {
    patterns: [
      {
        regex: `${reach}(?!audit/actor\\.ts$)[^/]+/(?![^/]*\\.(?:service|schemas)\\.ts$)`,
        message:
          "Reach another module only through its <feature>.service.ts (or .schemas.ts, or audit/actor.ts); if you need more, export a documented function from that module's service.",
      },
    ],
  },
];
// From a module file the other modules are `../<feature>/…`; from elsewhere in src/ they are `…/modules/<feature>/…`.
const fromModule = '(?:^\\.\\./(?!\\.\\./)|(?:^|/)modules/)';
const fromOutside = '(?:^|/)modules/';

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
  { files: ['src/modules/*/**/*.ts'], rules: { 'no-restricted-imports': boundary(fromModule) } },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/modules/**', 'src/jobs/registry.ts'],
    rules: { 'no-restricted-imports': boundary(fromOutside) },
  },
  // Process entries talk to people on the terminal.
  { files: ['src/server.ts', 'src/cli/**', 'scripts/**', 'bench/**', 'bin/**'], rules: { 'no-console': 'off' } },
);

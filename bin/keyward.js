#!/usr/bin/env node
// The CLI runs the compiled code in dist/ (built by `npm install`, or `npm run build` after changing the
// sources), like `npm start`; a checkout that was never built runs the TypeScript sources through tsx.
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/cli/main.js', import.meta.url);
if (existsSync(compiled)) {
  await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}

#!/usr/bin/env node
// The netpresence command. An installed package runs the compiled JavaScript in dist/ (built by
// `npm run build`, shipped by `npm pack`); a checkout without dist/ runs the TypeScript sources
// through tsx's loader, a dev dependency that a production install does not have.
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/cli/main.js', import.meta.url);
const sources = new URL('../src/cli/main.ts', import.meta.url);

if (existsSync(compiled)) {
  await import(compiled.href);
} else if (existsSync(sources)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(sources.href);
} else {
  console.error(
    'netpresence: neither dist/cli/main.js nor src/cli/main.ts is installed; run `npm run build`',
  );
  process.exit(1);
}

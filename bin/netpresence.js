#!/usr/bin/env node
// The netpresence command. A checkout runs its TypeScript sources through tsx's loader (a dev
// dependency), so what it runs is always what it holds — a dist/ left by an earlier build is not
// run in its place; an installed package, which ships dist/ and no sources, runs the compiled
// JavaScript (built by `npm run build`, shipped by `npm pack`).
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/cli/main.js', import.meta.url);
const sources = new URL('../src/cli/main.ts', import.meta.url);

if (existsSync(sources)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(sources.href);
} else if (existsSync(compiled)) {
  await import(compiled.href);
} else {
  console.error(
    'netpresence: neither src/cli/main.ts nor dist/cli/main.js is installed; run `npm run build`',
  );
  process.exit(1);
}

#!/usr/bin/env node
// `npm run build`: compiles src/ (without its tests) to dist/ with tsc and source maps, from an
// empty dist/ so no file of a removed source survives, then bundles the dashboard page into
// dist/dashboard/. `npm pack` runs it first (prepack).
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
const tsc = require.resolve('typescript/bin/tsc');
const result = spawnSync(
  process.execPath,
  [tsc, '-p', new URL('../tsconfig.build.json', import.meta.url).pathname],
  {
    stdio: 'inherit',
  },
);
if (result.status !== 0) process.exit(result.status ?? 1);
await import('./build-dashboard.js');

#!/usr/bin/env node
// Bundles the dashboard page (src/dashboard/web, Preact + uPlot) into dist/dashboard/app.js and
// app.css with esbuild: no CDN, nothing fetched at run time. Run by npm start, npm test, CI and
// the prepare step.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
await build({
  entryPoints: [`${root}src/dashboard/web/app.tsx`],
  bundle: true,
  format: 'esm',
  target: ['chrome110', 'firefox110', 'safari16'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  minify: true,
  sourcemap: false,
  outfile: `${root}dist/dashboard/app.js`,
  logLevel: 'warning',
});

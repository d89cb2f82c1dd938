/**
 * Which code a bench's netpresence process runs (bench/fleet's fleet, bench/apiserver's server):
 * `compiled` (the default) is what an installed netpresence runs — dist/, built by `npm run
 * build` just before, as `npm pack` and the container image build it; `sources` is what a
 * checkout runs — the TypeScript sources through tsx's loader, whose transform names every
 * function it creates (esbuild's keepNames: one `__name` call and one property store per
 * closure) and so costs CPU and memory a package does not pay (bench/README.md, "Compiled, as
 * installed").
 *
 * Guarantees: for `compiled`, dist/ is rebuilt from the sources of this checkout before the
 * process starts (a stale dist/ is never measured), and a failed build ends the bench.
 */
import { spawnSync } from 'node:child_process';
import { REPO_ROOT } from '../test/support/fleet.ts';

export const CODES = ['compiled', 'sources'];

/** The script a bench's netpresence process runs for `code`, relative to the repository root. */
export function netpresenceEntry(code: string): string {
  if (code === 'sources') return 'bin/netpresence.js';
  const started = performance.now();
  const build = spawnSync(process.execPath, ['scripts/build.js'], { cwd: REPO_ROOT, stdio: 'inherit' });
  if (build.status !== 0) throw new Error(`npm run build failed (exit ${build.status})`);
  console.log(`build: dist/ compiled in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return 'dist/cli/main.js';
}

/**
 * `netpresence trace claim` through the fleet: `netpresence up` with fixture F (a child process,
 * every controller and the propagation engine running), a binding and two claims in cell `cell-a`,
 * traced through the kubeconfig the fleet wrote — one claim bound, one refused.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { ClaimReason } from '../../src/apis/networking/v1alpha/claim-refusals.ts';
import { advice } from '../../src/trace/advice.ts';
import {
  allWithin,
  conditionOf,
  get,
  GIVEN_WITHIN,
  isTrue,
  REPO_ROOT,
  startFixtureF,
  type FleetFixture,
} from '../support/fleet.ts';

const run = promisify(execFile);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function netpresence(...args: string[]): Promise<Run> {
  try {
    const bin = join(REPO_ROOT, 'bin/netpresence.js');
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], { timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe('netpresence trace claim through netpresence up', () => {
  let f: FleetFixture;
  let tracedBound: Promise<Run>;
  let tracedRefused: Promise<Run>;

  before(async () => {
    f = await startFixtureF();
    await f.createBinding('web');
    await f.createClaim('cell-a', 'web-0-eth0');
    await f.createClaim('cell-a', 'web-1-eth0', { ipFamilies: ['IPv4'] });
    await allWithin(GIVEN_WITHIN, {
      'web-0-eth0 is bound': async () => isTrue(await get(f, 'cell-a', 'claims', 'web-0-eth0', f.H), 'Bound'),
      'web-1-eth0 is refused': async () =>
        conditionOf(await get(f, 'cell-a', 'claims', 'web-1-eth0', f.H), 'Ready')?.reason ===
        ClaimReason.AddressFamilyNotCarried,
    });
    const kubeconfig = f.fleet.kubeconfigPath;
    tracedBound = netpresence('trace', 'claim', `cell-a/${f.H}/web-0-eth0`, '--kubeconfig', kubeconfig);
    tracedRefused = netpresence('trace', 'claim', `cell-a/${f.H}/web-1-eth0`, '--kubeconfig', kubeconfig);
    await Promise.all([tracedBound, tracedRefused]);
  });

  after(() => f.dispose());

  it('a bound claim waiting only for the data plane traces every hop ok and exits 0', async () => {
    const traced = await tracedBound;
    assert.equal(traced.code, 0, traced.stdout + traced.stderr);
    const lines = traced.stdout.trimEnd().split('\n');
    assert.equal(lines.at(-1), 'verdict: every hop is present and Ready');
    for (const hop of ['binding', 'cell location', 'cell copy', 'addresses', 'interface', 'claim'])
      assert.ok(
        lines.some((line) => new RegExp(`^ok\\s+${hop}\\s`).test(line)),
        `${hop} ok in:\n${traced.stdout}`,
      );
  });

  it('a claim for a family the network does not carry names the network and exits 1', async () => {
    const traced = await tracedRefused;
    assert.equal(traced.code, 1, traced.stdout + traced.stderr);
    assert.equal(
      traced.stdout.trimEnd().split('\n').at(-1),
      `verdict: network Network default/vpc in project-project-alpha refuses: ${advice.familyNotCarried('project-alpha', 'default', 'vpc', 'IPv4')}`,
    );
  });
});

/**
 * `netpresence trace` and `netpresence hub-namespace` against real planes: the scenario harness
 * serves platform, hub, project and cell planes; the network, networkcontext, presence and
 * replicator controllers run; the test stands in for the location publisher and propagation (the
 * policy `location-us-central-1` taken up, the hub copies carried to the cell). The commands run
 * as child processes, reading through a kubeconfig named as `netpresence up` names its contexts.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { CLUSTER_LOCATION_LABEL } from '../../src/apis/common/labels.ts';
import type { NetworkBinding } from '../../src/apis/networking/v1alpha/network-binding.ts';
import { CPP_PERMANENT_ID_LABEL } from '../../src/apis/policy/v1alpha1/cluster-propagation-policy.ts';
import { presenceController } from '../../src/controllers/hub/presence.ts';
import { networkController } from '../../src/controllers/project/network.ts';
import { networkContextController } from '../../src/controllers/project/networkcontext.ts';
import { replicatorController } from '../../src/controllers/project/replicator.ts';
import { advice } from '../../src/trace/advice.ts';
import { hubNamespaceMessages, resolveHubNamespace } from '../../src/trace/hub-namespace.ts';
import { KubeconfigPlaneReader } from '../../src/trace/kubeconfig-reader.ts';
import { Kinds } from '../../src/trace/reader.ts';
import { eventually } from '../support/apiserver.ts';
import {
  binding,
  CLUSTER_PROPAGATION_POLICIES,
  createCluster,
  createLocationBinding,
  createNetwork,
  NETWORK_BINDINGS,
  readyOf,
} from '../support/hub-fixtures.ts';
import { ALPHA, US_CENTRAL_1 } from '../support/project-fixtures.ts';
import { startScenario, type Scenario } from '../support/scenario.ts';
import { carryToCell, writeFleetKubeconfig } from '../support/trace-fixtures.ts';

const CELL = 'cell-us-central-1';
const CONTEXT = 'vpc-us-central-1';
const BIN = join(import.meta.dirname, '../../bin/netpresence.js');
const run = promisify(execFile);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `netpresence <args>`; resolves with its exit code and output. */
async function netpresence(...args: string[]): Promise<Run> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

async function reasonIs(
  s: Scenario,
  namespace: string,
  name: string,
  reason: string,
): Promise<true | undefined> {
  const found = await s.client<NetworkBinding>('hub', NETWORK_BINDINGS).get(name, namespace);
  return readyOf(found)?.reason === reason ? true : undefined;
}

describe('netpresence trace and hub-namespace', () => {
  let s: Scenario;
  let dir: string;
  let kubeconfig: string;
  let H: string;
  // The commands run side by side once the planes are set up; each test reads its own run.
  let printedHubNamespace: Promise<Run>;
  let tracedReady: Promise<Run>;
  let tracedRefusal: Promise<Run>;

  before(async () => {
    s = await startScenario({
      projects: [ALPHA],
      cells: [CELL],
      controllers: [networkController, networkContextController, presenceController, replicatorController],
    });
    dir = await mkdtemp(join(tmpdir(), 'netpresence-trace-'));
    kubeconfig = await writeFleetKubeconfig(s, dir);
    H = await s.hubNamespace(ALPHA);
    await createCluster(s, CELL, { [CLUSTER_LOCATION_LABEL]: US_CENTRAL_1 });
    await createLocationBinding(s, ALPHA, US_CENTRAL_1);
    await createNetwork(s, ALPHA, 'vpc');
    await s.client('hub', CLUSTER_PROPAGATION_POLICIES).create({
      metadata: { name: `location-${US_CENTRAL_1}`, labels: { [CPP_PERMANENT_ID_LABEL]: 'p-1' } },
      spec: { resourceSelectors: [] },
    });
    const bindings = s.client('hub', NETWORK_BINDINGS);
    await bindings.create(binding('web', H, 'vpc'));
    await bindings.create(binding('lost', H, 'nope'));
    await eventually(() => reasonIs(s, H, 'web', 'NetworkContextReady'), 10_000, 'web Ready');
    await eventually(() => reasonIs(s, H, 'lost', 'NetworkNotFound'), 10_000, 'lost refused');
    await eventually(
      () => s.client('hub', Kinds.subnet).get(`${CONTEXT}-ipv6`, H),
      10_000,
      'the hub Subnet copy',
    );
    await carryToCell(s, CELL, Kinds.networkContext, CONTEXT, H);
    await carryToCell(s, CELL, Kinds.subnet, `${CONTEXT}-ipv6`, H);

    printedHubNamespace = netpresence('hub-namespace', ALPHA, '--kubeconfig', kubeconfig);
    tracedReady = netpresence('trace', 'binding', `${H}/web`, '--kubeconfig', kubeconfig);
    tracedRefusal = netpresence('trace', 'binding', `${H}/lost`, '--kubeconfig', kubeconfig);
    await Promise.all([printedHubNamespace, tracedReady, tracedRefusal]);
  });

  after(async () => {
    await s.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('hub-namespace prints ns-<uid> of the project namespace, default when none is given', async () => {
    const printed = await printedHubNamespace;
    assert.equal(printed.code, 0, printed.stderr);
    assert.equal(printed.stdout, `${H}\n`);
  });

  it('the hub namespace of a namespace the project lacks is an error naming both', async () => {
    const reader = new KubeconfigPlaneReader(kubeconfig);
    assert.equal(await resolveHubNamespace(reader, { project: ALPHA, namespace: 'default' }), H);
    await assert.rejects(resolveHubNamespace(reader, { project: ALPHA, namespace: 'api' }), {
      message: hubNamespaceMessages.namespaceMissing(ALPHA, 'api'),
    });
  });

  it('a Ready binding carried to its cell traces every hop ok and exits 0', async () => {
    const traced = await tracedReady;
    assert.equal(traced.code, 0, traced.stdout + traced.stderr);
    const lines = traced.stdout.trimEnd().split('\n');
    assert.equal(lines.at(-1), 'verdict: every hop is present and Ready');
    for (const object of [
      `NetworkBinding ${H}/web  Ready=True NetworkContextReady`,
      `Network default/vpc  Ready=True Ready`,
      `NetworkContext default/${CONTEXT}  Ready=True Ready`,
      `Subnet default/${CONTEXT}-ipv6`,
      `NetworkContext ${H}/${CONTEXT}`,
      `Subnet ${H}/${CONTEXT}-ipv6`,
      `Cluster ${CELL}`,
    ])
      assert.ok(
        lines.some((line) => line.startsWith('ok') && line.includes(object)),
        `${object} ok in:\n${traced.stdout}`,
      );
    assert.ok(lines.some((line) => /^ok\s+cell copy\s+cell-us-central-1\s+NetworkContext/.test(line)));
  });

  it('a binding to a network the project lacks names the network hop and exits 1', async () => {
    const traced = await tracedRefusal;
    assert.equal(traced.code, 1, traced.stdout + traced.stderr);
    assert.equal(
      traced.stdout.trimEnd().split('\n').at(-1),
      `verdict: network Network default/nope in project-${ALPHA} is missing (NetworkBinding ${H}/lost reports NetworkNotFound): ${advice.networkMissing(ALPHA, 'default', 'nope')}`,
    );
  });
});

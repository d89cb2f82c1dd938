/**
 * `netpresence propagator` losing its Lease before its engine's hub ever listed
 * CustomResourceDefinitions, and going on (issue 16; the split fleet's process kills, seed 1207).
 *
 * In that run the API server was killed just after the propagator had taken its Lease: the new
 * engine's CRD list was refused, the term ended (no renewal within the deadline), and stopping the
 * engine stopped the CRD informer before its first list. The promise waiting for that list then
 * rejected with nobody handling it, Node ended the process (exit code 1), and the propagator
 * propagated nothing until the chaos run itself restarted it, minutes later.
 *
 * Here the hub's RBAC refuses the propagator's CRD list, so the CRD informer never lists — the
 * case hub-view.ts names ("a hub refusing to list CRDs delays no start"). A chaos run would need a
 * lucky kill, but this way the window never closes. Another holder then takes the Lease. The
 * propagator must stop leading, stay alive, take the Lease back once it is released, and start a
 * fresh engine that propagates.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { cellCrds, hubCrds, propagationCrds } from '../../src/apis/crds.ts';
import { installCrds } from '../../src/apis/install-crds.ts';
import { resourceClient } from '../../src/client/resource-client.ts';
import type { KubeObject, ResourceId } from '../../src/client/types.ts';
import { PROPAGATOR_LEASE, PROPAGATOR_LEASE_NAMESPACE } from '../../src/processes/propagator.ts';
import { LEASES, type Lease } from '../../src/runtime/leader-election.ts';
import { eventually, startTestServer, type TestServer } from '../support/apiserver.ts';
import {
  CLUSTERS,
  contextTemplate,
  CPPS,
  locationPolicy,
  NAMESPACES,
  NCS,
  NS_A,
  TEMPLATE,
} from '../support/propagation-harness.ts';
import { startProcess, type RunningProcess } from '../support/process.ts';
import { CONFIG_DIR } from '../support/split-fleet.ts';

const MEMBER = 'cell-dfw-1';
const IDENTITY = 'lease-loss-propagator';
const USER = 'propagator-without-crds';
const SECRETS: ResourceId = { group: '', version: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true };
const CLUSTER_ROLES: ResourceId = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'ClusterRole',
  plural: 'clusterroles',
  namespaced: false,
};
const CLUSTER_ROLE_BINDINGS: ResourceId = {
  ...CLUSTER_ROLES,
  kind: 'ClusterRoleBinding',
  plural: 'clusterrolebindings',
};

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

/** config/rbac/hub's propagator role without its CRD rule. */
async function rulesWithoutCrds(): Promise<Rule[]> {
  const documents = parseAllDocuments(await readFile(join(CONFIG_DIR, 'rbac/hub/propagator.yaml'), 'utf8'));
  const role = documents
    .map((d) => d.toJS() as { kind: string; rules?: Rule[] })
    .find((d) => d.kind === 'ClusterRole');
  const rules = role!.rules!.filter((rule) => !rule.resources.includes('customresourcedefinitions'));
  assert.equal(rules.length, role!.rules!.length - 1, 'the propagator role has one CRD rule');
  return rules;
}

describe('netpresence propagator, its Lease lost before the hub listed CRDs (issue 16, process kills seed 1207)', () => {
  let t: TestServer;
  let propagator: RunningProcess;
  let output = '';
  let stderr = '';
  const hub = <T extends KubeObject = KubeObject>(id: ResourceId) =>
    resourceClient<T>(t.kubeConfig('hub'), id);
  const leases = () => hub<Lease>(LEASES);
  const count = (message: string) =>
    output.split('\n').filter((line) => line.includes(`"msg":"${message}"`)).length;
  /** Waits for `check`, failing at once (with its stderr) if the propagator exits meanwhile. */
  const whileAlive = <T>(check: () => T | undefined | Promise<T | undefined>, what: string) =>
    eventually(
      async () => {
        const { exitCode, signalCode } = propagator.child;
        if (exitCode !== null || signalCode !== null)
          assert.fail(
            `the propagator exited (${exitCode ?? signalCode}) while waiting for ${what}:\n${stderr}`,
          );
        return check();
      },
      30_000,
      what,
    );

  before(async () => {
    t = await startTestServer(['hub', MEMBER]);
    await installCrds(t.kubeConfig('hub'), [...hubCrds, ...propagationCrds]);
    await installCrds(t.kubeConfig(MEMBER), cellCrds);
    await hub(CLUSTER_ROLES).create({
      metadata: { name: USER },
      rules: await rulesWithoutCrds(),
    });
    await hub(CLUSTER_ROLE_BINDINGS).create({
      metadata: { name: USER },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: USER },
      subjects: [{ kind: 'User', name: USER }],
    });
    const hubKubeconfig = join(t.dir, 'propagator.kubeconfig');
    await writeFile(hubKubeconfig, t.server.kubeconfig(t.server.createIdentity(USER), ['hub']), {
      mode: 0o600,
    });
    propagator = await startProcess('propagator', [
      '--hub-kubeconfig',
      hubKubeconfig,
      '--identity',
      IDENTITY,
      '--log-level',
      'info',
    ]);
    propagator.child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    propagator.child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  });

  after(async () => {
    if (propagator?.child.exitCode === null) propagator.child.kill('SIGKILL');
    await t?.stop();
  });

  it('stays up when another holder takes its Lease, takes it back once released, and propagates with a fresh engine', async () => {
    await whileAlive(
      async () =>
        (await leases().get(PROPAGATOR_LEASE, PROPAGATOR_LEASE_NAMESPACE))?.spec?.holderIdentity === IDENTITY
          ? true
          : undefined,
      'the propagator to hold its Lease',
    );
    await whileAlive(
      () => (count('propagation engine started') === 1 ? true : undefined),
      'its first engine',
    );
    assert.equal(count('propagation engine started'), 1);

    // Another holder: the propagator's next renewal sees it and ends its term (the engine stops,
    // its CRD informer never having listed).
    const held = (await leases().get(PROPAGATOR_LEASE, PROPAGATOR_LEASE_NAMESPACE))!;
    await leases().update({ ...held, spec: { ...held.spec, holderIdentity: 'another-propagator' } });
    await whileAlive(
      () => (output.includes('no longer leading; the propagation engine stop') ? true : undefined),
      'the term to end',
    );

    // Released: the propagator takes it at its next attempt and builds a fresh engine.
    const taken = (await leases().get(PROPAGATOR_LEASE, PROPAGATOR_LEASE_NAMESPACE))!;
    const { holderIdentity: _gone, ...free } = taken.spec ?? {};
    await leases().update({ ...taken, spec: { ...free, leaseDurationSeconds: 1 } });
    await whileAlive(
      async () =>
        (await leases().get(PROPAGATOR_LEASE, PROPAGATOR_LEASE_NAMESPACE))?.spec?.holderIdentity === IDENTITY
          ? true
          : undefined,
      'the propagator to take its Lease back',
    );
    await whileAlive(() => (count('propagation engine started') === 2 ? true : undefined), 'a fresh engine');

    // The fresh engine works: a template reaches the member.
    await hub(NAMESPACES).create({ metadata: { name: 'karmada-cluster' } });
    await hub(SECRETS).create({
      metadata: { name: MEMBER, namespace: 'karmada-cluster' },
      data: { kubeconfig: Buffer.from(t.kubeConfig(MEMBER).exportConfig()).toString('base64') },
    });
    await hub(CLUSTERS).create({
      metadata: { name: MEMBER, labels: { 'topology.datum.net/location': 'dfw' } },
      spec: { syncMode: 'Push', secretRef: { namespace: 'karmada-cluster', name: MEMBER } },
    });
    await hub(NAMESPACES).create({ metadata: { name: NS_A } });
    await hub(CPPS).create(locationPolicy('dfw'));
    await hub(NCS).create(contextTemplate());
    const copy = await eventually(
      () => resourceClient(t.kubeConfig(MEMBER), NCS).get(TEMPLATE, NS_A),
      45_000,
      'the copy on the member',
    );
    assert.equal(copy.metadata.labels?.['karmada.io/managed'], 'true');

    propagator.child.kill('SIGTERM');
    assert.equal(await propagator.exited, 0, `the propagator stops cleanly on SIGTERM:\n${stderr}`);
  });
});

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
 *
 * The same run showed a lost term's engine still waiting for its hub's first lists (about 40 s,
 * across outages) and then starting every controller without the Lease. Here the hub refuses the
 * propagator's Secret list, so its standalone engine never finishes listing: when the term ends,
 * that start must give up (no controller started) and the propagator must be able to lead again
 * and stop on SIGTERM.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseAllDocuments } from 'yaml';
import { cellCrds, hubCrds, propagationCrds } from '../../src/apis/crds.ts';
import { installCrds } from '../../src/apis/install-crds.ts';
import { resourceClient } from '../../src/client/resource-client.ts';
import type { KubeObject, ResourceId } from '../../src/client/types.ts';
import { PROPAGATOR_LEASE, PROPAGATOR_LEASE_NAMESPACE } from '../../src/processes/propagator.ts';
import { LEASES, type Lease } from '../../src/runtime/leader-election.ts';
import { eventually, startTestServer, type TestServer } from '../support/apiserver.ts';
import { propagatedThroughSecret } from '../support/propagation-harness.ts';
import { startProcess, type RunningProcess } from '../support/process.ts';
import { CONFIG_DIR } from '../support/split-fleet.ts';

const MEMBER = 'cell-dfw-1';
const IDENTITY = 'lease-loss-propagator';
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

/** config/rbac/hub's propagator role without its rule for `resource`. */
async function rulesWithout(resource: string): Promise<Rule[]> {
  const documents = parseAllDocuments(await readFile(join(CONFIG_DIR, 'rbac/hub/propagator.yaml'), 'utf8'));
  const role = documents
    .map((d) => d.toJS() as { kind: string; rules?: Rule[] })
    .find((d) => d.kind === 'ClusterRole');
  const rules = role!.rules!.filter((rule) => !rule.resources.includes(resource));
  assert.equal(rules.length, role!.rules!.length - 1, `the propagator role has one rule for ${resource}`);
  return rules;
}

/** An API server, and `netpresence propagator` on it whose hub role lacks the rule for `resource`. */
function restrictedPropagator(resource: string) {
  const user = `propagator-without-${resource}`;
  const f = {
    t: undefined as unknown as TestServer,
    propagator: undefined as unknown as RunningProcess,
    output: '',
    stderr: '',
    hub: <T extends KubeObject = KubeObject>(id: ResourceId) => resourceClient<T>(f.t.kubeConfig('hub'), id),
    leases: () => f.hub<Lease>(LEASES),
    count: (message: string) =>
      f.output.split('\n').filter((line) => line.includes(`"msg":"${message}"`)).length,
    /** Waits for `check`, failing at once (with its stderr) if the propagator exits meanwhile. */
    whileAlive: <T>(check: () => T | undefined | Promise<T | undefined>, what: string) =>
      eventually(
        async () => {
          const { exitCode, signalCode } = f.propagator.child;
          if (exitCode !== null || signalCode !== null)
            assert.fail(
              `the propagator exited (${exitCode ?? signalCode}) while waiting for ${what}:\n${f.stderr}`,
            );
          return check();
        },
        30_000,
        what,
      ),
    holds: async () =>
      (await f.leases().get(PROPAGATOR_LEASE, PROPAGATOR_LEASE_NAMESPACE))?.spec?.holderIdentity === IDENTITY
        ? true
        : undefined,
    /** Another holder in the Lease: the propagator's next renewal sees it and ends its term. */
    async takeLease() {
      const held = (await f.leases().get(PROPAGATOR_LEASE, PROPAGATOR_LEASE_NAMESPACE))!;
      await f.leases().update({ ...held, spec: { ...held.spec, holderIdentity: 'another-propagator' } });
      await f.whileAlive(
        () => (f.output.includes('no longer leading; the propagation engine stop') ? true : undefined),
        'the term to end',
      );
    },
    /** The Lease released: the propagator takes it at its next attempt. */
    async releaseLease() {
      const taken = (await f.leases().get(PROPAGATOR_LEASE, PROPAGATOR_LEASE_NAMESPACE))!;
      const { holderIdentity: _gone, ...free } = taken.spec ?? {};
      await f.leases().update({ ...taken, spec: { ...free, leaseDurationSeconds: 1 } });
      await f.whileAlive(f.holds, 'the propagator to take its Lease back');
    },
  };
  before(async () => {
    f.t = await startTestServer(['hub', MEMBER]);
    await installCrds(f.t.kubeConfig('hub'), [...hubCrds, ...propagationCrds]);
    await installCrds(f.t.kubeConfig(MEMBER), cellCrds);
    await f.hub(CLUSTER_ROLES).create({ metadata: { name: user }, rules: await rulesWithout(resource) });
    await f.hub(CLUSTER_ROLE_BINDINGS).create({
      metadata: { name: user },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: user },
      subjects: [{ kind: 'User', name: user }],
    });
    const hubKubeconfig = join(f.t.dir, 'propagator.kubeconfig');
    await writeFile(hubKubeconfig, f.t.server.kubeconfig(f.t.server.createIdentity(user), ['hub']), {
      mode: 0o600,
    });
    f.propagator = await startProcess('propagator', [
      '--hub-kubeconfig',
      hubKubeconfig,
      '--identity',
      IDENTITY,
      '--log-level',
      'info',
    ]);
    f.propagator.child.stdout?.on('data', (d: Buffer) => (f.output += d.toString()));
    f.propagator.child.stderr?.on('data', (d: Buffer) => (f.stderr += d.toString()));
  });
  after(async () => {
    if (f.propagator?.child.exitCode === null) f.propagator.child.kill('SIGKILL');
    await f.t?.stop();
  });
  return f;
}

describe('netpresence propagator, its Lease lost before the hub listed CRDs (issue 16, process kills seed 1207)', () => {
  const f = restrictedPropagator('customresourcedefinitions');
  const { whileAlive, count } = f;

  it('stays up when another holder takes its Lease, takes it back once released, and propagates with a fresh engine', async () => {
    await whileAlive(f.holds, 'the propagator to hold its Lease');
    await whileAlive(
      () => (count('propagation engine started') === 1 ? true : undefined),
      'its first engine',
    );
    assert.equal(count('propagation engine started'), 1);

    // Another holder ends the term: the engine stops, its CRD informer never having listed.
    await f.takeLease();
    // Released: the propagator takes it back and builds a fresh engine.
    await f.releaseLease();
    await whileAlive(() => (count('propagation engine started') === 2 ? true : undefined), 'a fresh engine');

    // The fresh engine works: a template reaches the member.
    const copy = await propagatedThroughSecret(f.t.kubeConfig('hub'), f.t.kubeConfig(MEMBER), MEMBER);
    assert.equal(copy.metadata.labels?.['karmada.io/managed'], 'true');

    f.propagator.child.kill('SIGTERM');
    assert.equal(await f.propagator.exited, 0, `the propagator stops cleanly on SIGTERM:\n${f.stderr}`);
  });
});

describe('netpresence propagator, its Lease lost while its engine waits for the hub lists (issue 16, process kills seed 1207)', () => {
  const f = restrictedPropagator('secrets');

  it('starts no controller for the lost term, leads again once the Lease is released, and stops on SIGTERM', async () => {
    // The hub refuses the Secret list of the standalone member directory: the engine's hub
    // informers never all list, so its start waits.
    await f.whileAlive(f.holds, 'the propagator to hold its Lease');
    await f.whileAlive(
      () => (f.output.includes('secrets is forbidden') ? true : undefined),
      'the refused Secret list',
    );
    await f.takeLease();
    // The lost term's start gives up at once, so the propagator is a candidate again.
    await f.releaseLease();
    assert.equal(f.count('the term ended before the propagation engine started'), 1);
    assert.equal(f.count('starting workers'), 0, 'no controller started for the lost term');
    assert.equal(f.count('propagation engine started'), 0);

    f.propagator.child.kill('SIGTERM');
    const exited = await Promise.race([f.propagator.exited, sleep(30_000, 'still running', { ref: false })]);
    assert.equal(exited, 0, `the propagator stops cleanly on SIGTERM:\n${f.stderr}`);
    assert.equal(f.count('starting workers'), 0, 'no controller started in either term');
  });
});

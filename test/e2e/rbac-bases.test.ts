/**
 * The RBAC bases of config/rbac applied with kubectl to the planes they are for (after the CRD
 * bases), each identity's token minted with `kubectl create token`, and then, as each identity:
 * `kubectl auth can-i --list` works and lists exactly the resources its roles name, and spot
 * checks of what it may and may not do hold — the narrowing issues 13, 15 and 17 ask for included.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { spawnSync } from 'node:child_process';
import { startTestServer, type TestServer } from '../support/apiserver.ts';
import { Kubectl } from '../support/kubectl.ts';

const CONFIG = resolve(import.meta.dirname, '../../config');
const NS = 'netpresence-system';
const CELLS = 'netpresence-cells';

/** Plane context → the CRD and RBAC bases it gets. */
const PLANES: Record<string, { crd: string[]; rbac: string }> = {
  root: { crd: ['platform'], rbac: 'platform' },
  'project-demo': { crd: ['project'], rbac: 'project' },
  hub: { crd: ['hub', 'propagation'], rbac: 'hub' },
  'cell-a': { crd: ['cell'], rbac: 'cell' },
};

type Obj = Record<string, any>;

function rendered(base: string): Obj[] {
  const out = spawnSync('kubectl', ['kustomize', join(CONFIG, base)], { encoding: 'utf8' });
  assert.equal(out.status, 0, out.stderr);
  return parseAllDocuments(out.stdout).map((d) => d.toJSON() as Obj);
}

describe('config/rbac applied to the planes, as each identity', () => {
  let t: TestServer;
  const identities = new Map<string, Kubectl>(); // `${plane}/${serviceAccount}`

  before(async () => {
    t = await startTestServer(['hub', 'cell-a']);
    t.server.addProjectPlane('demo');
    await writeFile(t.kubeconfigPath, t.server.kubeconfig(), { mode: 0o600 });
    for (const [plane, bases] of Object.entries(PLANES)) {
      for (const crd of bases.crd)
        await t.kubectl.ok(['--context', plane, 'apply', '-k', join(CONFIG, 'crd', crd)]);
      await t.kubectl.ok(['--context', plane, 'apply', '-k', join(CONFIG, 'rbac', bases.rbac)]);
      const accounts = rendered(`rbac/${bases.rbac}`)
        .filter((o) => o.kind === 'ServiceAccount')
        .map((o) => ({ name: o.metadata.name as string, namespace: NS }));
      // A cell's identity on the hub and in project planes: its own ServiceAccount in netpresence-cells.
      if (plane === 'hub' || plane === 'project-demo') {
        await t.kubectl.ok(['--context', plane, 'create', 'serviceaccount', 'cell-a', '-n', CELLS]);
        accounts.push({ name: 'cell-a', namespace: CELLS });
      }
      for (const { name, namespace } of accounts) {
        const token = (
          await t.kubectl.ok([
            '--context',
            plane,
            'create',
            'token',
            name,
            '-n',
            namespace,
            '--duration',
            '1h',
          ])
        ).trim();
        const path = join(t.dir, `${plane}-${name}.kubeconfig`);
        await writeFile(path, t.server.kubeconfig(token, [plane]), { mode: 0o600 });
        identities.set(`${plane}/${name}`, new Kubectl(path, join(t.dir, `${plane}-${name}-cache`), t.dir));
      }
    }
  });

  after(() => t.stop());

  it('lists, with kubectl auth can-i --list, exactly the resources each identity’s roles name', async () => {
    assert.equal(identities.size, 14);
    for (const [key, kubectl] of identities) {
      const [plane, account] = key.split('/');
      const objects = rendered(`rbac/${PLANES[plane].rbac}`);
      const bound = objects.filter(
        (o) =>
          (o.kind === 'ClusterRoleBinding' || o.kind === 'RoleBinding') &&
          o.subjects.some((s: Obj) =>
            account === 'cell-a' ? s.name === `system:serviceaccounts:${CELLS}` : s.name === account,
          ),
      );
      for (const namespace of ['default', 'kube-system']) {
        const expected = new Set<string>();
        for (const binding of bound) {
          if (binding.kind === 'RoleBinding' && binding.metadata.namespace !== namespace) continue;
          const role = objects.find(
            (o) => o.kind === binding.roleRef.kind && o.metadata.name === binding.roleRef.name,
          )!;
          for (const rule of role.rules) {
            for (const group of rule.apiGroups) {
              for (const resource of rule.resources) {
                const [base, sub] = resource.split('/');
                expected.add(`${group ? `${base}.${group}` : base}${sub ? `/${sub}` : ''}`);
              }
            }
          }
        }
        const listed = await kubectl.ok(['auth', 'can-i', '--list', '-n', namespace]);
        const resources = new Set(
          listed
            .split('\n')
            .slice(1)
            .map((line) => line.split(/\s+/)[0])
            .filter((name) => name && !name.startsWith('selfsubject') && !name.startsWith('[')),
        );
        assert.deepEqual([...resources].sort(), [...expected].sort(), `${key} in ${namespace}`);
      }
    }
  });

  it('lets each identity do what its controllers need and nothing around it', async () => {
    const cases: [string, string[], 'yes' | 'no'][] = [
      // manager
      [
        'hub/netpresence-manager',
        ['patch', 'networkbindings.networking.datumapis.com', '--subresource=status', '-n', 'ns-x'],
        'yes',
      ],
      ['hub/netpresence-manager', ['create', 'networkbindings.networking.datumapis.com', '-n', 'ns-x'], 'no'],
      ['hub/netpresence-manager', ['get', 'secrets', '-n', 'ns-x'], 'no'],
      ['hub/netpresence-manager', ['update', 'leases.coordination.k8s.io', '-n', 'kube-system'], 'yes'],
      ['hub/netpresence-manager', ['update', 'leases.coordination.k8s.io', '-n', 'default'], 'no'],
      ['root/netpresence-manager', ['watch', 'projects.resourcemanager.miloapis.com'], 'yes'],
      ['root/netpresence-manager', ['create', 'projects.resourcemanager.miloapis.com'], 'no'],
      ['project-demo/netpresence-manager', ['create', 'ipclaims.ipam.miloapis.com', '-n', 'default'], 'yes'],
      ['project-demo/netpresence-manager', ['create', 'ippools.ipam.miloapis.com'], 'no'],
      // cell (issue 13: claims and allocations, no pool or class writes). NetworkInterfaces on the
      // hub and in project planes (issue 15) are served once that issue's CRDs land; until then
      // kubectl cannot resolve them there, and the --list check above covers those rules.
      ['project-demo/cell-a', ['create', 'ipclaims.ipam.miloapis.com', '-n', 'default'], 'yes'],
      ['project-demo/cell-a', ['delete', 'ipallocations.ipam.miloapis.com', '-n', 'default'], 'yes'],
      ['project-demo/cell-a', ['create', 'ippools.ipam.miloapis.com'], 'no'],
      ['project-demo/cell-a', ['update', 'ipclasses.ipam.miloapis.com'], 'no'],
      ['project-demo/cell-a', ['get', 'networks.networking.datumapis.com', '-n', 'default'], 'no'],
      ['hub/cell-a', ['get', 'networkbindings.networking.datumapis.com', '-n', 'ns-x'], 'no'],
      [
        'cell-a/netpresence-cell',
        ['patch', 'networkinterfaceclaims.networking.datumapis.com', '--subresource=status', '-n', 'ns-x'],
        'yes',
      ],
      ['cell-a/netpresence-cell', ['create', 'subnets.networking.datumapis.com', '-n', 'ns-x'], 'no'],
      // propagator
      ['hub/netpresence-propagator', ['create', 'works.work.karmada.io', '-n', 'karmada-es-cell-a'], 'yes'],
      ['hub/netpresence-propagator', ['list', 'secrets', '-A'], 'yes'],
      ['hub/netpresence-propagator', ['create', 'secrets', '-n', 'default'], 'no'],
      [
        'hub/netpresence-propagator',
        ['create', 'networkbindings.networking.datumapis.com', '-n', 'ns-x'],
        'no',
      ],
      ['cell-a/netpresence-propagator', ['update', 'subnets.networking.datumapis.com', '-n', 'ns-x'], 'yes'],
      [
        'cell-a/netpresence-propagator',
        ['create', 'networkinterfaces.networking.datumapis.com', '-n', 'ns-x'],
        'no',
      ],
      // the data plane's status writer (issue 17)
      [
        'cell-a/netpresence-dataplane',
        ['patch', 'networkinterfaces.networking.datumapis.com', '--subresource=status', '-n', 'ns-x'],
        'yes',
      ],
      [
        'cell-a/netpresence-dataplane',
        ['patch', 'networkinterfaces.networking.datumapis.com', '-n', 'ns-x'],
        'no',
      ],
      [
        'cell-a/netpresence-dataplane',
        ['delete', 'networkinterfaces.networking.datumapis.com', '-n', 'ns-x'],
        'no',
      ],
    ];
    for (const [key, args, expected] of cases) {
      const result = await identities.get(key)!.run(['auth', 'can-i', ...args]);
      assert.equal(
        result.stdout.trim(),
        expected,
        `${key}: can-i ${args.join(' ')} (${result.stderr.trim()})`,
      );
    }
  });

  it('gives a project’s consumer its bindings only where the provisioner binds the consumer role', async () => {
    const k = (args: string[]) => t.kubectl.ok(['--context', 'hub', ...args]);
    await k(['create', 'namespace', 'ns-p1']);
    await k(['create', 'serviceaccount', 'consumer-demo', '-n', 'ns-p1']);
    await k([
      'create',
      'rolebinding',
      'netpresence-consumer',
      '-n',
      'ns-p1',
      '--clusterrole=netpresence-consumer',
      '--serviceaccount=ns-p1:consumer-demo',
    ]);
    const token = (await k(['create', 'token', 'consumer-demo', '-n', 'ns-p1'])).trim();
    const path = join(t.dir, 'consumer.kubeconfig');
    await writeFile(path, t.server.kubeconfig(token, ['hub']), { mode: 0o600 });
    const consumer = new Kubectl(path, join(t.dir, 'consumer-cache'), t.dir);
    const can = async (args: string[]) => (await consumer.run(['auth', 'can-i', ...args])).stdout.trim();
    assert.equal(await can(['create', 'networkbindings.networking.datumapis.com', '-n', 'ns-p1']), 'yes');
    assert.equal(await can(['create', 'networkbindings.networking.datumapis.com', '-n', 'ns-other']), 'no');
    assert.equal(await can(['get', 'networkcontexts.networking.datumapis.com', '-n', 'ns-p1']), 'no');
    assert.match(
      await consumer.ok(['auth', 'can-i', '--list', '-n', 'ns-p1']),
      /^networkbindings\.networking\.datumapis\.com/m,
    );
  });
});

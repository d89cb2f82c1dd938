/**
 * `kubectl auth can-i --list` for every narrow identity of the embedded fleet (issue 18): the
 * RBAC objects the fleet stores in each kind of plane (identities.ts, as `netpresence up` stores
 * them) are written into a served platform, hub, project plane and cell plane; each identity's
 * token asks, in every plane it acts in, and kubectl lists exactly the resources its roles there
 * name — the consumer's only in a hub namespace bound to it.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { renderKubeconfig } from '../../src/apiserver/auth/kubeconfig.ts';
import type { KubeObject } from '../../src/apiserver/objects.ts';
import { ApiServer, ROOT_PLANE } from '../../src/apiserver/server.ts';
import { crdsOfPlane, ensureObjects, installPlaneCrds, type StoredKind } from '../../src/fleet/bootstrap.ts';
import {
  cellGrants,
  cellIdentity,
  CLUSTER_ROLE_BINDINGS,
  CLUSTER_ROLES,
  consumerIdentity,
  consumerRoleBinding,
  DASHBOARD_IDENTITY,
  DATAPLANE_IDENTITY,
  dataPlaneCellIdentity,
  hubGrants,
  MANAGER_IDENTITY,
  platformGrants,
  projectGrants,
  PROPAGATOR_IDENTITY,
  type Grant,
} from '../../src/fleet/identities.ts';
import { Kubectl } from '../support/kubectl.ts';

const CELL = 'cell-a';
const PROJECT = 'alpha';
const HUB_NAMESPACE = 'ns-x';
const NAMESPACES: StoredKind = { group: '', version: 'v1', plural: 'namespaces' };
const ROLE_BINDINGS: StoredKind = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  plural: 'rolebindings',
};

type Obj = Record<string, any>;

describe("kubectl auth can-i --list for the fleet's narrow identities", () => {
  let server: ApiServer;
  let dir: string;
  /** Plane name by kind. */
  const planes: Record<string, string> = { platform: ROOT_PLANE, hub: 'hub', cell: CELL };
  /** What the fleet stores per kind of plane. */
  const grants: Record<string, Grant> = {
    platform: platformGrants(),
    hub: hubGrants([CELL]),
    project: projectGrants([CELL]),
    cell: cellGrants(CELL),
  };

  before(async () => {
    server = await ApiServer.start({});
    dir = await mkdtemp(join(tmpdir(), 'netpresence-fleet-can-i-'));
    server.addPlane('hub');
    server.addPlane(CELL);
    planes.project = server.addProjectPlane(PROJECT).name;
    installPlaneCrds(server.plane(ROOT_PLANE)!, crdsOfPlane.platform);
    installPlaneCrds(server.plane('hub')!, crdsOfPlane.hub);
    installPlaneCrds(server.plane(planes.project)!, crdsOfPlane.project);
    installPlaneCrds(server.plane(CELL)!, crdsOfPlane.cell);
    for (const [kind, grant] of Object.entries(grants)) {
      ensureObjects(server.plane(planes[kind])!, CLUSTER_ROLES, grant.roles);
      ensureObjects(server.plane(planes[kind])!, CLUSTER_ROLE_BINDINGS, grant.bindings);
    }
    // As the hub-namespace provisioner binds a project's consumer in each of its hub namespaces.
    ensureObjects(server.plane('hub')!, NAMESPACES, [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: HUB_NAMESPACE } },
    ]);
    ensureObjects(server.plane('hub')!, ROLE_BINDINGS, [consumerRoleBinding(PROJECT, HUB_NAMESPACE)]);
  });

  after(async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** `resource.group[/subresource]` of every rule the plane's grants bind to `user` (in `namespace`). */
  function expected(kind: string, user: string, namespace?: string): string[] {
    const { roles, bindings } = grants[kind];
    const bound: KubeObject[] = bindings.filter((b: Obj) => b.subjects.some((s: Obj) => s.name === user));
    if (namespace && kind === 'hub' && user === consumerIdentity(PROJECT))
      bound.push(consumerRoleBinding(PROJECT, namespace));
    const names = new Set<string>();
    for (const binding of bound as Obj[]) {
      const role = roles.find((r) => r.metadata.name === binding.roleRef.name) as Obj;
      for (const rule of role.rules)
        for (const group of rule.apiGroups)
          for (const resource of rule.resources) {
            const [base, sub] = resource.split('/');
            names.add(`${group ? `${base}.${group}` : base}${sub ? `/${sub}` : ''}`);
          }
    }
    return [...names].sort();
  }

  async function listed(kind: string, user: string, namespace = 'default'): Promise<string[]> {
    const token = server.createIdentity(user);
    const path = join(dir, `${kind}-${user}.kubeconfig`);
    await writeFile(
      path,
      renderKubeconfig(
        server.certificates.caCertPem,
        [{ name: kind, server: server.url(planes[kind]), token }],
        kind,
      ),
      { mode: 0o600 },
    );
    const out = await new Kubectl(path, join(dir, `${kind}-${user}-cache`), dir).ok([
      'auth',
      'can-i',
      '--list',
      '-n',
      namespace,
    ]);
    return out
      .split('\n')
      .slice(1)
      .map((line) => line.split(/\s+/)[0])
      .filter((name) => name && !name.startsWith('selfsubject') && !name.startsWith('['))
      .sort();
  }

  const ACTS_IN: [string, string[]][] = [
    [MANAGER_IDENTITY, ['platform', 'hub', 'project']],
    [PROPAGATOR_IDENTITY, ['hub', 'cell']],
    [cellIdentity(CELL), ['hub', 'project', 'cell']],
    [DATAPLANE_IDENTITY, ['project', 'cell']],
    [dataPlaneCellIdentity(CELL), ['cell']],
    [DASHBOARD_IDENTITY, ['platform', 'hub', 'project', 'cell']],
  ];

  for (const [user, kinds] of ACTS_IN) {
    it(`lists what ${user} may do in each plane it acts in`, async () => {
      for (const kind of kinds) {
        const want = expected(kind, user);
        assert.ok(want.length > 0, `${user} holds something in the ${kind} plane`);
        assert.deepEqual(await listed(kind, user), want, `${user} in the ${kind} plane`);
      }
    });
  }

  it("lists a project's consumer's NetworkBindings in its hub namespace only", async () => {
    const consumer = consumerIdentity(PROJECT);
    const want = expected('hub', consumer, HUB_NAMESPACE);
    assert.ok(want.includes('networkbindings.networking.datumapis.com'));
    assert.deepEqual(await listed('hub', consumer, HUB_NAMESPACE), want);
    assert.deepEqual(await listed('hub', consumer, 'default'), [], 'nothing in another namespace');
  });
});

/**
 * `kubectl auth can-i --list` for every narrow identity of the embedded fleet (issue 18): each
 * kind of plane gets its config/rbac base as `netpresence up` applies it (applyRbacBase); each
 * identity's token, minted as the fleet mints it (fleetTokens), asks in every plane it acts in,
 * and kubectl lists exactly the resources the base's roles bound to it name — the consumer's
 * only in a hub namespace bound to it.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { renderKubeconfig } from '../../src/apiserver/auth/kubeconfig.ts';
import { ApiServer, ROOT_PLANE } from '../../src/apiserver/server.ts';
import { crdsOfPlane, ensureObjects, installPlaneCrds, type StoredKind } from '../../src/fleet/bootstrap.ts';
import {
  CELL_IDENTITY,
  cellServiceAccountUser,
  consumerIdentity,
  consumerRoleBinding,
  DASHBOARD_IDENTITY,
  DATAPLANE_IDENTITY,
  fleetTokens,
  MANAGER_IDENTITY,
  PROPAGATOR_IDENTITY,
} from '../../src/fleet/identities.ts';
import { applyRbacBase, rbacBase, type RbacPlane } from '../../src/fleet/rbac-bases.ts';
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
  const KINDS: RbacPlane[] = ['platform', 'hub', 'project', 'cell'];

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
    for (const kind of KINDS) applyRbacBase(server.plane(planes[kind])!, kind);
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

  /** `resource.group[/subresource]` of every rule the plane's base binds to `user` (in `namespace`). */
  function expected(kind: RbacPlane, user: string, namespace = 'default'): string[] {
    const objects = rbacBase(kind) as Obj[];
    const subjectIs = (s: Obj) =>
      s.kind === 'ServiceAccount'
        ? user === `system:serviceaccount:${s.namespace}:${s.name}`
        : s.kind === 'Group'
          ? user.startsWith(`system:serviceaccount:${s.name.split(':').at(-1)}:`)
          : s.name === user;
    const bound = objects.filter(
      (o) =>
        (o.kind === 'ClusterRoleBinding' ||
          (o.kind === 'RoleBinding' && o.metadata.namespace === namespace)) &&
        o.subjects.some(subjectIs),
    );
    if (kind === 'hub' && user === consumerIdentity(PROJECT) && namespace === HUB_NAMESPACE)
      bound.push(consumerRoleBinding(PROJECT, namespace));
    const names = new Set<string>();
    for (const binding of bound) {
      const role = objects.find(
        (o) => o.kind === binding.roleRef.kind && o.metadata.name === binding.roleRef.name,
      )!;
      for (const rule of role.rules)
        for (const group of rule.apiGroups)
          for (const resource of rule.resources) {
            const [base, sub] = resource.split('/');
            names.add(`${group ? `${base}.${group}` : base}${sub ? `/${sub}` : ''}`);
          }
    }
    return [...names].sort();
  }

  async function listed(kind: RbacPlane, token: string, namespace = 'default'): Promise<string[]> {
    const key = `${kind}-${namespace}-${token.slice(0, 8)}`;
    const path = join(dir, `${key}.kubeconfig`);
    await writeFile(
      path,
      renderKubeconfig(
        server.certificates.caCertPem,
        [{ name: kind, server: server.url(planes[kind]), token }],
        kind,
      ),
      { mode: 0o600 },
    );
    const out = await new Kubectl(path, join(dir, `${key}-cache`), dir).ok([
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

  /** Each identity, the kinds of plane it acts in, and its token there, as the fleet mints it. */
  const ACTS_IN: [string, RbacPlane[], (kind: RbacPlane) => string][] = [
    [MANAGER_IDENTITY, ['platform', 'hub', 'project'], () => fleetTokens.manager(server)],
    [PROPAGATOR_IDENTITY, ['hub', 'cell'], () => fleetTokens.propagator(server)],
    [CELL_IDENTITY, ['cell'], () => fleetTokens.cell(server, CELL)],
    [cellServiceAccountUser(CELL), ['hub', 'project'], () => fleetTokens.cellAbroad(server, CELL)],
    [
      DATAPLANE_IDENTITY,
      ['project', 'cell'],
      (kind) =>
        kind === 'cell' ? fleetTokens.dataPlaneCell(server, CELL) : fleetTokens.dataPlaneProjects(server),
    ],
    [DASHBOARD_IDENTITY, ['platform', 'hub', 'project', 'cell'], () => fleetTokens.dashboard(server)],
  ];

  for (const [user, kinds, tokenIn] of ACTS_IN) {
    it(`lists what ${user} may do in each plane it acts in`, async () => {
      for (const kind of kinds) {
        const want = expected(kind, user);
        assert.ok(want.length > 0, `${user} holds something in the ${kind} plane`);
        assert.deepEqual(await listed(kind, tokenIn(kind)), want, `${user} in the ${kind} plane`);
      }
    });
  }

  it("lists a project's consumer's NetworkBindings in its hub namespace only", async () => {
    const consumer = consumerIdentity(PROJECT);
    const want = expected('hub', consumer, HUB_NAMESPACE);
    assert.ok(want.includes('networkbindings.networking.datumapis.com'));
    const token = server.createIdentity(consumer);
    assert.deepEqual(await listed('hub', token, HUB_NAMESPACE), want);
    assert.deepEqual(await listed('hub', token, 'default'), [], 'nothing in another namespace');
  });
});

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Project } from '../apis/resourcemanager/v1alpha1/project.ts';
import { ApiServer } from '../apiserver/server.ts';
import type { ResourceClient } from '../client/types.ts';
import { FakeClock } from '../runtime/clock.ts';
import { Store } from '../runtime/store.ts';
import { parseFleetConfig } from './config.ts';
import { KubeconfigWriter } from './kubeconfig-writer.ts';
import { PROJECT_READY_MESSAGE, reconcile, type ProvisionerDeps } from './project-provisioner.ts';

describe('project provisioner', () => {
  let server: ApiServer;
  let dir: string;
  before(async () => {
    server = await ApiServer.start();
    server.addPlane('hub');
    dir = await mkdtemp(join(tmpdir(), 'netpresence-provisioner-'));
  });
  after(async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });

  function fixture() {
    const projects = new Store<Project>();
    const statusPatches: unknown[] = [];
    const client = {
      patchMerge: (name: string, _ns: undefined, body: unknown) => {
        statusPatches.push(body);
        return Promise.resolve(projects.get(undefined, name)!);
      },
    } as unknown as ResourceClient<Project>;
    const kubeconfig = new KubeconfigWriter(join(dir, 'kubeconfig'), server, new Map());
    const deps: ProvisionerDeps = {
      projects,
      client,
      fleet: {
        server,
        config: parseFleetConfig('cells: [{ name: cell-a }]\n'),
        kubeconfig,
        projectPlanes: new Map(),
      },
      clock: new FakeClock(Date.parse('2026-01-01T00:00:00Z')),
    };
    const store = (name: string, uid: string) =>
      projects.replace([
        {
          metadata: { name, uid, generation: 1, resourceVersion: uid },
          spec: { ownerRef: { kind: 'Organization', name: 'acme' } },
        },
      ]);
    return { deps, store, projects, statusPatches, kubeconfig };
  }

  it('serves a Project its plane — CRDs, IPAM hook and defaults, RBAC, namespace default — before marking it Ready', async () => {
    const f = fixture();
    f.store('alpha', 'uid-1');
    await reconcile('alpha', f.deps);
    const plane = server.plane('project-alpha');
    assert.ok(plane, 'the plane is served');
    assert.ok(plane.catalog.lookup('networking.datumapis.com', 'v1alpha', 'networks'), 'the project CRDs');
    assert.ok(plane.catalog.lookup('ipam.miloapis.com', 'v1alpha1', 'ippools'));
    assert.ok(plane.namespace('default'));
    assert.equal(
      plane.log.list(plane.catalog.lookup('ipam.miloapis.com', 'v1alpha1', 'ipclasses')!.storage).length,
      5,
    );
    assert.ok(f.kubeconfig.projectNames().includes('alpha'));
    const [patch] = f.statusPatches as {
      status: { conditions: { type: string; status: string; message: string }[] };
    }[];
    const ready = patch.status.conditions.find((c) => c.type === 'Ready')!;
    assert.deepEqual([ready.status, ready.message], ['True', PROJECT_READY_MESSAGE]);
  });

  it('provisions a plane once per process: a later event of its Project leaves the plane alone, a restart provisions again', async () => {
    const f = fixture();
    f.store('gamma', 'uid-1');
    await reconcile('gamma', f.deps);
    const plane = server.plane('project-gamma')!;
    const roles = plane.catalog.lookup('rbac.authorization.k8s.io', 'v1', 'clusterroles')!.storage;
    const [role] = plane.log.list(roles);
    const key = `/${role.metadata.name}`;
    plane.log.remove(roles, key);
    await reconcile('gamma', f.deps);
    assert.equal(plane.log.get(roles, key), undefined, 'the next event of the Project wrote nothing');
    assert.equal(f.statusPatches.length, 2, 'and still reported the Project Ready');
    // A restart: the fleet holds no plane yet, so the stored one is provisioned again.
    f.deps.fleet.projectPlanes.clear();
    await reconcile('gamma', f.deps);
    assert.equal(server.plane('project-gamma'), plane, 'the same plane, not a new one');
    assert.deepEqual(plane.log.get(roles, key)?.rules, role.rules, 'the role is back');
  });

  it('removes the plane when the Project goes, and serves a fresh one for a Project recreated under the same name', async () => {
    const f = fixture();
    f.store('beta', 'uid-1');
    await reconcile('beta', f.deps);
    const first = server.plane('project-beta')!;
    f.store('beta', 'uid-2');
    await reconcile('beta', f.deps);
    assert.notEqual(server.plane('project-beta'), first, 'a new uid gets a new plane');
    f.projects.replace([]);
    await reconcile('beta', f.deps);
    assert.equal(server.plane('project-beta'), undefined);
    assert.ok(!f.kubeconfig.projectNames().includes('beta'));
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Project } from '../apis/resourcemanager/v1alpha1/project.ts';
import type { KubeObject, ResourceClient } from '../client/types.ts';
import type { ProjectPlaneWatch } from '../controllers/shared/project-plane-watch.ts';
import type { ObjectStore } from '../runtime/informer-contract.ts';
import { Store } from '../runtime/store.ts';
import {
  FLEET_MANAGER,
  hubNamespaceIndexes,
  reconcile,
  type HubNamespaceDeps,
  type ProjectNamespaceKey,
} from './hub-namespaces.ts';

let revision = 0;
const object = (name: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  metadata: { name, resourceVersion: String(++revision), ...extra },
});

/** A client that records writes. */
function recorder(writes: string[], kind: string): ResourceClient {
  return {
    create: (o: KubeObject) => {
      writes.push(
        `create ${kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`,
      );
      return Promise.resolve(o);
    },
    delete: (name: string) => {
      writes.push(`delete ${kind} ${name}`);
      return Promise.resolve(true);
    },
  } as unknown as ResourceClient;
}

function fixture(options: { engaged: boolean; projectExists: boolean }) {
  const projectNamespaces = new Store();
  const hubNamespaces = new Store();
  for (const [name, fn] of Object.entries(hubNamespaceIndexes)) hubNamespaces.addIndex(name, fn);
  const projects = new Store<Project>();
  if (options.projectExists) projects.replace([object('alpha') as Project]);
  const planes = {
    view: (project: string) => (options.engaged && project === 'alpha' ? projectNamespaces : undefined),
    engaged: () => options.engaged,
  } as unknown as ProjectPlaneWatch<ProjectNamespaceKey, ObjectStore>;
  const writes: string[] = [];
  const deps: HubNamespaceDeps = {
    projects,
    planes,
    hubNamespaces,
    consumerBindings: new Store(),
    namespaceClient: recorder(writes, 'namespace'),
    roleBindingClient: recorder(writes, 'rolebinding'),
  };
  const managed = (name: string, namespace: string) =>
    object(name, {
      labels: {
        'meta.datumapis.com/upstream-cluster-name': 'cluster-alpha',
        'meta.datumapis.com/upstream-namespace': namespace,
        'app.kubernetes.io/managed-by': FLEET_MANAGER,
      },
    });
  return { deps, writes, projectNamespaces, hubNamespaces, managed };
}

describe('hub-namespace provisioner', () => {
  it('gives a project namespace its hub namespace ns-<uid> and the consumer RoleBinding there', async () => {
    const f = fixture({ engaged: true, projectExists: true });
    f.projectNamespaces.replace([
      object('default', { uid: 'u1' }),
      object('kube-system', { uid: 'k1' }),
      object('netpresence-system', { uid: 's1' }),
      object('netpresence-cells', { uid: 'c1' }),
    ]);
    for (const namespace of ['default', 'kube-system', 'netpresence-system', 'netpresence-cells'])
      await reconcile({ project: 'alpha', namespace }, f.deps);
    assert.deepEqual(f.writes, ['create namespace ns-u1', 'create rolebinding ns-u1/netpresence-consumer']);
  });

  it('deletes a managed hub namespace whose project namespace is gone, or was recreated under a new uid', async () => {
    const f = fixture({ engaged: true, projectExists: true });
    f.projectNamespaces.replace([object('default', { uid: 'u2' })]);
    f.hubNamespaces.replace([f.managed('ns-u1', 'default'), f.managed('ns-t1', 'team')]);
    await reconcile({ project: 'alpha', namespace: 'default' }, f.deps);
    await reconcile({ project: 'alpha', namespace: 'team' }, f.deps);
    assert.deepEqual(f.writes, [
      'delete namespace ns-u1',
      'create namespace ns-u2',
      'create rolebinding ns-u2/netpresence-consumer',
      'delete namespace ns-t1',
    ]);
  });

  it('keeps the hub namespaces of a project that exists but is not engaged, and deletes those of a project that is gone', async () => {
    const waiting = fixture({ engaged: false, projectExists: true });
    waiting.hubNamespaces.replace([waiting.managed('ns-u1', 'default')]);
    await reconcile({ project: 'alpha', namespace: 'default' }, waiting.deps);
    assert.deepEqual(waiting.writes, []);

    const gone = fixture({ engaged: false, projectExists: false });
    gone.hubNamespaces.replace([gone.managed('ns-u1', 'default')]);
    await reconcile({ project: 'alpha', namespace: 'default' }, gone.deps);
    assert.deepEqual(gone.writes, ['delete namespace ns-u1']);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject, ResourceClient } from '../../client/types.ts';
import type { ObjectStore } from '../../runtime/informer-contract.ts';
import type { InterfaceCopy } from '../shared/interface-copy.ts';
import type { ProjectPlaneWatch } from '../shared/project-plane-watch.ts';
import { reconcile, type CopyKey, type ProjectorDeps, type ProjectView } from './interface-projector.ts';

const H = 'ns-u';
const NAME = 'web-0.cell-a';
const SOURCE_NAMESPACE = 'networking.datumapis.com/source-namespace';

function store<T extends KubeObject>(...objects: T[]): ObjectStore<T> {
  return {
    get: (namespace, name) =>
      objects.find((o) => o.metadata.namespace === namespace && o.metadata.name === name),
    list: (namespace) => objects.filter((o) => namespace === undefined || o.metadata.namespace === namespace),
    byIndex: () => [],
  };
}

function recordingClient() {
  const calls: string[] = [];
  const client = {
    delete: async (name: string, namespace?: string) => {
      calls.push(`delete ${namespace}/${name}`);
      return true;
    },
    create: async (object: InterfaceCopy) => {
      calls.push(`create ${object.metadata.namespace}/${object.metadata.name}`);
      return { ...object, metadata: { ...object.metadata, resourceVersion: '1' } };
    },
    patchMerge: async (name: string, namespace: string | undefined) => {
      calls.push(`patch ${namespace}/${name}`);
      return { metadata: { name, namespace, resourceVersion: '2' } };
    },
  } as unknown as ResourceClient<InterfaceCopy>;
  return { client, calls };
}

const hubNamespace = {
  metadata: {
    name: H,
    labels: {
      'meta.datumapis.com/upstream-cluster-name': 'cluster-project-alpha',
      'meta.datumapis.com/upstream-namespace': 'default',
    },
  },
};
const hubCopy: InterfaceCopy = {
  metadata: { name: NAME, namespace: H, labels: { 'networking.datumapis.com/network': 'vpc' } },
  spec: { network: { name: 'vpc' } },
  status: { phase: 'Bound', conditions: [] },
};
const network = (deleting = false): KubeObject => ({
  metadata: {
    name: 'vpc',
    namespace: 'default',
    uid: 'n1',
    ...(deleting && { deletionTimestamp: '2026-12-03T00:00:00Z' }),
  },
});
const projectCopy = (sourceNamespace?: string): InterfaceCopy => ({
  metadata: {
    name: NAME,
    namespace: 'default',
    labels: sourceNamespace ? { [SOURCE_NAMESPACE]: sourceNamespace } : {},
  },
});

function world(options: { networks: KubeObject[]; copies: InterfaceCopy[]; hubCopies?: InterfaceCopy[] }) {
  const { client, calls } = recordingClient();
  const view: ProjectView = {
    copies: store(...options.copies),
    copyClient: client,
    networks: store(...options.networks),
  };
  const deps: ProjectorDeps = {
    hubCopies: store(...(options.hubCopies ?? [hubCopy])),
    hubNamespaces: store(hubNamespace),
    projects: {
      view: (project: string) => (project === 'project-alpha' ? view : undefined),
    } as unknown as ProjectPlaneWatch<CopyKey, ProjectView>,
  };
  return { deps, calls };
}

const key: CopyKey = { namespace: H, name: NAME };

describe('interface projector', () => {
  it('projects a live hub copy next to its live Network', async () => {
    const { deps, calls } = world({ networks: [network()], copies: [] });
    await reconcile(key, deps);
    assert.deepEqual(calls, [`create default/${NAME}`, `patch default/${NAME}`]);
  });

  it('deletes its copy while the Network is being deleted, and does not write it again', async () => {
    const { deps, calls } = world({ networks: [network(true)], copies: [projectCopy(H)] });
    await reconcile(key, deps);
    assert.deepEqual(calls, [`delete default/${NAME}`]);
    const empty = world({ networks: [network(true)], copies: [] });
    await reconcile(key, empty.deps);
    assert.deepEqual(empty.calls, []);
  });

  it('deletes its copy when the hub copy is gone', async () => {
    const { deps, calls } = world({ networks: [network()], copies: [projectCopy(H)], hubCopies: [] });
    await reconcile(key, deps);
    assert.deepEqual(calls, [`delete default/${NAME}`]);
  });

  it('never touches a project copy of another hub namespace, or one without source-namespace', async () => {
    for (const copy of [projectCopy('ns-other'), projectCopy()]) {
      for (const networks of [[network()], []]) {
        const { deps, calls } = world({ networks, copies: [copy] });
        await reconcile(key, deps);
        assert.deepEqual(calls, []);
      }
    }
  });

  it('does nothing for a hub namespace that routes to no project, or a plane not engaged', async () => {
    const unrouted = world({ networks: [network()], copies: [] });
    await reconcile({ namespace: 'ns-unknown', name: NAME }, unrouted.deps);
    assert.deepEqual(unrouted.calls, []);
    const { deps, calls } = world({ networks: [network()], copies: [] });
    deps.projects = { view: () => undefined } as unknown as ProjectPlaneWatch<CopyKey, ProjectView>;
    await reconcile(key, deps);
    assert.deepEqual(calls, []);
  });
});

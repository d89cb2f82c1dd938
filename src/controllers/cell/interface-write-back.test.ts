import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import type { NetworkInterface } from '../../apis/networking/v1alpha/network-interface.ts';
import { statusErrorFrom } from '../../client/errors.ts';
import type { KubeObject, ResourceClient } from '../../client/types.ts';
import { done } from '../../runtime/controller.ts';
import type { ObjectStore } from '../../runtime/informer-contract.ts';
import type { InterfaceCopy } from '../shared/interface-copy.ts';
import { IdentitySource, IdentityHolder } from './identity.ts';
import { reconcile, type WriteBackDeps } from './interface-write-back.ts';

const H = 'ns-u';
const log = pino({ level: 'silent' });

function store<T extends KubeObject>(...objects: T[]): ObjectStore<T> {
  return {
    get: (namespace, name) =>
      objects.find((o) => o.metadata.namespace === namespace && o.metadata.name === name),
    list: (namespace) => objects.filter((o) => namespace === undefined || o.metadata.namespace === namespace),
    byIndex: () => [],
  };
}

function recordingClient(createFails?: number) {
  const calls: { verb: string; object?: InterfaceCopy; name?: string }[] = [];
  const client = {
    delete: async (name: string, namespace?: string) => {
      calls.push({ verb: 'delete', name: `${namespace}/${name}` });
      return true;
    },
    create: async (object: InterfaceCopy) => {
      calls.push({ verb: 'create', object });
      if (createFails) throw statusErrorFrom(createFails, { reason: 'NotFound', message: 'namespace gone' });
      return { ...object, metadata: { ...object.metadata, resourceVersion: '1' } };
    },
    patchMerge: async (name: string, namespace: string | undefined) => {
      calls.push({ verb: 'patch', name: `${namespace}/${name}` });
      return { metadata: { name, namespace, resourceVersion: '2' } };
    },
  } as unknown as ResourceClient<InterfaceCopy>;
  return { client, calls };
}

const upstream = {
  'meta.datumapis.com/upstream-cluster-name': 'cluster-project-alpha',
  'meta.datumapis.com/upstream-namespace': 'default',
};
const iface = (namespace = H): NetworkInterface =>
  ({
    metadata: { name: 'web-0', namespace },
    spec: { network: { name: 'vpc' }, claimRef: { name: 'web-0' }, attachmentMode: 'Netns' },
    status: { phase: 'Bound', conditions: [] },
  }) as unknown as NetworkInterface;
const copyOf = (cell: string, namespace = H): InterfaceCopy => ({
  metadata: {
    name: `web-0.${cell}`,
    namespace,
    labels: { 'networking.datumapis.com/source-cell': cell },
  },
});

function deps(options: {
  interfaces?: NetworkInterface[];
  namespaces?: KubeObject[];
  copies?: InterfaceCopy[];
  createFails?: number;
}) {
  const { client, calls } = recordingClient(options.createFails);
  const identity = new IdentityHolder();
  identity.replace({ resolved: true, location: 'us-central-1', source: IdentitySource.Delivered });
  const d: WriteBackDeps = {
    cell: 'cell-a',
    interfaces: store(...(options.interfaces ?? [])),
    namespaces: store(...(options.namespaces ?? [{ metadata: { name: H, labels: upstream } }])),
    identity,
    copies: store(...(options.copies ?? [])),
    copyClient: client,
  };
  return { d, calls };
}

describe('interface write-back', () => {
  it('writes a copy of an interface of a hub namespace, with the labels of controllers.md §13', async () => {
    const { d, calls } = deps({ interfaces: [iface()] });
    await reconcile(`${H}/web-0`, d, log);
    assert.equal(calls[0].verb, 'create');
    assert.equal(calls[0].object?.metadata.name, 'web-0.cell-a');
    assert.deepEqual(calls[0].object?.metadata.labels, {
      'networking.datumapis.com/network-interface-projection': 'true',
      'networking.datumapis.com/source-cell': 'cell-a',
      'networking.datumapis.com/network': 'vpc',
      'networking.datumapis.com/location': 'us-central-1',
      'networking.datumapis.com/held-by': 'web-0',
      ...upstream,
    });
    assert.deepEqual(calls[0].object?.spec, { network: { name: 'vpc' } });
  });

  it('deletes the copy of its own cell when the interface is gone, never another cell’s', async () => {
    const own = deps({ copies: [copyOf('cell-a')] });
    await reconcile(`${H}/web-0`, own.d, log);
    assert.deepEqual(own.calls, [{ verb: 'delete', name: `${H}/web-0.cell-a` }]);
    const other = deps({ copies: [copyOf('cell-b')] });
    await reconcile(`${H}/web-0`, other.d, log);
    assert.deepEqual(other.calls, []);
  });

  it('writes no copy of an interface in a namespace without upstream labels, and deletes a stale one', async () => {
    const local = iface('local');
    const fresh = deps({ interfaces: [local], namespaces: [{ metadata: { name: 'local' } }] });
    await reconcile('local/web-0', fresh.d, log);
    assert.deepEqual(fresh.calls, []);
    const stale = deps({
      interfaces: [local],
      namespaces: [{ metadata: { name: 'local' } }],
      copies: [copyOf('cell-a', 'local')],
    });
    await reconcile('local/web-0', stale.d, log);
    assert.deepEqual(stale.calls, [{ verb: 'delete', name: 'local/web-0.cell-a' }]);
  });

  it('waits quietly while the hub namespace is absent', async () => {
    const { d, calls } = deps({ interfaces: [iface()], createFails: 404 });
    assert.deepEqual(await reconcile(`${H}/web-0`, d, log), done());
    assert.equal(calls.length, 1);
  });
});

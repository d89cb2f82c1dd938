import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NetworkContext } from '../../apis/networking/v1alpha/network-context.ts';
import {
  NETWORK_CONTROLLER_FINALIZER,
  networkMessages,
  type Network,
} from '../../apis/networking/v1alpha/network.ts';
import type { KubeObject } from '../../client/types.ts';
import { FakeClock } from '../../runtime/clock.ts';
import { Store } from '../../runtime/store.ts';
import {
  belongsTo,
  claimsAddressSpace,
  reconcile,
  type NetworkDeps,
  type NetworkPlaneView,
} from './network.ts';

interface Write {
  verb: string;
  name: string;
  body?: unknown;
  options?: unknown;
}

function network(spec: Partial<Network['spec']> = {}, meta: Partial<Network['metadata']> = {}): Network {
  return {
    metadata: {
      name: 'vpc',
      namespace: 'default',
      uid: 'net-uid',
      generation: 1,
      resourceVersion: '1',
      finalizers: [NETWORK_CONTROLLER_FINALIZER],
      ...meta,
    },
    spec: { ipam: { mode: 'Auto' }, ipFamilies: ['IPv6'], ...spec },
  };
}

function context(name: string, owner?: string, networkName = 'vpc', deleting = false): NetworkContext {
  return {
    metadata: {
      name,
      namespace: 'default',
      uid: `${name}-uid`,
      resourceVersion: '1',
      ...(deleting && { deletionTimestamp: '2030-01-01T00:00:00Z', finalizers: ['x'] }),
      ...(owner && {
        ownerReferences: [
          {
            apiVersion: 'networking.datumapis.com/v1alpha',
            kind: 'Network',
            name: 'vpc',
            uid: owner,
            controller: true,
          },
        ],
      }),
    },
    spec: { network: { name: networkName }, location: { name: 'fra' } },
  };
}

function stored<T extends KubeObject>(...objects: T[]): Store<T> {
  const store = new Store<T>();
  for (const object of objects) store.apply({ type: 'ADDED', object });
  return store;
}

function world(networks: Network[], contexts: NetworkContext[] = [], networkClass = 'network-class') {
  const writes: Write[] = [];
  const record = (verb: string) => (name: string, _ns: string, body?: unknown, options?: unknown) => {
    writes.push({ verb, name, body, options });
    const held = networks.find((n) => n.metadata.name === name);
    return Promise.resolve(
      held ? { ...held, metadata: { ...held.metadata, resourceVersion: '2' } } : undefined,
    );
  };
  const plane = {
    project: 'alpha',
    networks: stored(...networks),
    contexts: stored(...contexts),
    networkClient: { patchMerge: record('patch'), patchJson: record('json-patch') },
    contextClient: {
      delete: (name: string, _ns: string, options: unknown) =>
        record('delete')(name, _ns, undefined, options),
    },
    ipam: new Proxy(
      {},
      {
        get(_target, property) {
          throw new Error(`the test reached IPAM (${String(property)}), which it must not`);
        },
      },
    ),
  } as unknown as NetworkPlaneView;
  const deps = {
    planes: { view: (project: string) => (project === 'alpha' ? plane : undefined) },
    config: { networkClass },
    clock: new FakeClock(Date.parse('2030-01-01T00:00:00Z')),
  } as unknown as NetworkDeps;
  return { deps, writes };
}

const KEY = { project: 'alpha', namespace: 'default', name: 'vpc' };

describe('which contexts belong to a network', () => {
  it('a context with a controller reference belongs by UID, whatever network it names', () => {
    assert.equal(belongsTo(context('a', 'net-uid', 'other'), network()), true);
    assert.equal(belongsTo(context('b', 'earlier-uid'), network()), false);
  });

  it('a context without a controller reference belongs by the network name it carries', () => {
    assert.equal(belongsTo(context('a'), network()), true);
    assert.equal(belongsTo(context('b', undefined, 'other'), network()), false);
  });
});

describe('which networks hold a range', () => {
  it('only an Auto-mode network carrying IPv6 claims address space; a Policy-mode one does not', () => {
    assert.equal(claimsAddressSpace(network()), true);
    assert.equal(claimsAddressSpace(network({ ipFamilies: ['IPv4'] })), false);
    assert.equal(claimsAddressSpace(network({ ipFamilies: undefined })), false);
    assert.equal(claimsAddressSpace(network({ ipam: { mode: 'Policy' } })), false);
  });
});

describe('network reconcile', () => {
  it('does nothing while the project plane has not listed', async () => {
    const { deps, writes } = world([network()]);
    assert.equal(await reconcile({ ...KEY, project: 'beta' }, deps), undefined);
    assert.deepEqual(writes, []);
  });

  it('reports Ready without touching IPAM when no address service is configured', async () => {
    const { deps, writes } = world([network()], [], '');
    await reconcile(KEY, deps);
    const status = JSON.stringify(writes.map((w) => w.body));
    assert.ok(status.includes(networkMessages.noAddressService), status);
  });

  it('reports Ready without touching IPAM for a network that claims no address space', async () => {
    const { deps, writes } = world([network({ ipFamilies: ['IPv4'] })]);
    await reconcile(KEY, deps);
    assert.ok(JSON.stringify(writes.map((w) => w.body)).includes(networkMessages.claimsNoAddressSpace));
  });

  it('a deleting network deletes the contexts that belong to it and keeps its finalizer while any remain', async () => {
    const deleting = network({}, { deletionTimestamp: '2030-01-01T00:00:00Z' });
    const { deps, writes } = world(
      [deleting],
      [context('mine', 'net-uid'), context('gone', 'net-uid', 'vpc', true), context('theirs', 'earlier-uid')],
    );
    assert.equal(await reconcile(KEY, deps), undefined);
    assert.deepEqual(
      writes.map((w) => [w.verb, w.name, w.options]),
      [['delete', 'mine', { preconditions: { uid: 'mine-uid' } }]],
    );
  });

  it('a deleting network with no contexts left removes its controller finalizer', async () => {
    const deleting = network({}, { deletionTimestamp: '2030-01-01T00:00:00Z' });
    const { deps, writes } = world([deleting], [context('theirs', 'earlier-uid')]);
    await reconcile(KEY, deps);
    assert.deepEqual(
      writes.map((w) => w.verb),
      ['json-patch'],
    );
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { UPSTREAM_CLUSTER_NAME_LABEL, UPSTREAM_NAMESPACE_LABEL } from '../../apis/common/upstream.ts';
import type { NetworkContext } from '../../apis/networking/v1alpha/network-context.ts';
import {
  NETWORKINTERFACECLAIM_RELEASE_FINALIZER,
  type NetworkInterfaceClaim,
} from '../../apis/networking/v1alpha/network-interface-claim.ts';
import type { NetworkInterface } from '../../apis/networking/v1alpha/network-interface.ts';
import type { KubeObject, ResourceClient } from '../../client/types.ts';
import { BACKSTOP_MS } from '../../runtime/backstop.ts';
import { FakeClock } from '../../runtime/clock.ts';
import { Store } from '../../runtime/store.ts';
import { objectKeyOf } from './cell-context.ts';
import { inputsChanged, reconcile, type ClaimDeps } from './claim.ts';
import { IdentityHolder, type LocationIdentity } from './identity.ts';

const log = pino({ level: 'silent' });

interface Write {
  verb: string;
  name: string;
  body?: unknown;
  subresource?: string;
}

let rv = 0;
function stored<T extends KubeObject>(...objects: T[]): Store<T> {
  const store = new Store<T>();
  for (const object of objects)
    store.apply({
      type: 'ADDED',
      object: { ...object, metadata: { ...object.metadata, resourceVersion: `${++rv}` } },
    });
  return store;
}

function claim(finalized = true, ipFamilies: ('IPv4' | 'IPv6')[] = ['IPv6']): NetworkInterfaceClaim {
  return {
    metadata: {
      name: 'eth0',
      namespace: 'ns-1',
      generation: 1,
      ...(finalized && { finalizers: [NETWORKINTERFACECLAIM_RELEASE_FINALIZER] }),
    },
    spec: { network: { name: 'vpc' }, ipFamilies },
  };
}

function context(ipFamilies?: ('IPv4' | 'IPv6')[]): NetworkContext {
  return {
    metadata: { name: 'vpc-fra', namespace: 'ns-1' },
    spec: { network: { name: 'vpc' }, location: { name: 'fra' }, ...(ipFamilies && { ipFamilies }) },
  };
}

const routed: KubeObject = {
  metadata: {
    name: 'ns-1',
    labels: { [UPSTREAM_CLUSTER_NAME_LABEL]: 'cluster-alpha', [UPSTREAM_NAMESPACE_LABEL]: 'default' },
  },
};

const fra: LocationIdentity = { resolved: true, location: 'fra', source: 'Delivered' };

function world(w: {
  claim?: NetworkInterfaceClaim;
  identity?: LocationIdentity;
  namespaces?: KubeObject[];
  contexts?: NetworkContext[];
  interfaces?: NetworkInterface[];
}) {
  const writes: Write[] = [];
  const clock = new FakeClock(Date.parse('2030-01-01T00:00:00Z'));
  const claimClient = {
    patchMerge(name: string, _ns: string, body: unknown, options: { subresource?: string } = {}) {
      writes.push({ verb: 'patch', name, body, subresource: options.subresource });
      return Promise.resolve({ ...w.claim, ...(body as object) });
    },
    patchJson(name: string, _ns: string, ops: { op: string; path: string; value?: unknown }[]) {
      writes.push({ verb: 'json-patch', name, body: ops });
      const added = ops.find((op) => op.op === 'add');
      const held = w.claim ?? claim();
      return Promise.resolve({ ...held, metadata: { ...held.metadata, finalizers: added?.value } });
    },
  } as unknown as ResourceClient<NetworkInterfaceClaim>;
  const identity = new IdentityHolder();
  if (w.identity) identity.replace(w.identity);
  const untouchable = new Proxy(
    {},
    {
      get(_target, property) {
        throw new Error(`the test reached ${String(property)}, which it must not`);
      },
    },
  );
  const deps = {
    claims: stored(w.claim ?? claim()),
    interfaces: stored(...(w.interfaces ?? [])),
    contexts: stored(...(w.contexts ?? [])),
    subnets: stored(),
    namespaces: stored(...(w.namespaces ?? [routed])),
    claimClient,
    interfaceClient: untouchable,
    contextClient: untouchable,
    // Choosing a project's IPAM client reaches nothing; using it does.
    ipam: { forProject: () => untouchable },
    cell: 'cell-a',
    identity,
    events: untouchable,
    metrics: untouchable,
    clock,
  } as unknown as ClaimDeps;
  return { deps, writes };
}

function readyOf(writes: Write[]) {
  const status = writes.filter((w) => w.subresource === 'status').at(-1)?.body as
    | { status: { conditions: { type: string; status: string; reason: string; message: string }[] } }
    | undefined;
  assert.ok(status, 'a status write on the claim');
  return status.status.conditions.find((c) => c.type === 'Ready')!;
}

const KEY = objectKeyOf('ns-1', 'eth0');

describe('claim reconcile, before anything reaches IPAM', () => {
  it('waits without writing until the identity controller has answered', async () => {
    const { deps, writes } = world({});
    assert.deepEqual(await reconcile(KEY, deps, log), { kind: 'done' });
    assert.deepEqual(writes, []);
  });

  it('adds the release finalizer first and ends there: its event brings the claim back', async () => {
    const { deps, writes } = world({ claim: claim(false), identity: fra });
    assert.deepEqual(await reconcile(KEY, deps, log), { kind: 'done' });
    assert.deepEqual(
      writes.map((w) => w.verb),
      ['json-patch'],
    );
    const ops = writes[0].body as { op: string; path: string; value?: unknown }[];
    assert.ok(
      ops.some((op) => JSON.stringify(op.value)?.includes(NETWORKINTERFACECLAIM_RELEASE_FINALIZER)),
      'the patch adds the release finalizer',
    );
  });

  it('refuses with the identity reason when the cell has no location identity, and waits for the identity to change (no backstop)', async () => {
    const { deps, writes } = world({
      identity: { resolved: false, reason: 'NoLocationIdentity', message: 'no identity' },
    });
    assert.deepEqual(await reconcile(KEY, deps, log), { kind: 'done' });
    const ready = readyOf(writes);
    assert.equal(ready.status, 'False');
    assert.equal(ready.reason, 'NoLocationIdentity');
  });

  it('refuses a claim whose namespace names no project, and waits for the namespace (no backstop)', async () => {
    const { deps, writes } = world({ identity: fra, namespaces: [] });
    assert.deepEqual(await reconcile(KEY, deps, log), { kind: 'done' });
    assert.equal(readyOf(writes).reason, 'ProjectUnresolved');
  });

  it('refuses a network with no context in this location, naming the context, and waits for the context (no backstop)', async () => {
    const { deps, writes } = world({ identity: fra });
    assert.deepEqual(await reconcile(KEY, deps, log), { kind: 'done' });
    const ready = readyOf(writes);
    assert.equal(ready.reason, 'NetworkNotAvailableInLocation');
    assert.match(ready.message, /vpc-fra/);
  });

  it('refuses while the context carries no address family yet, and waits for its spec (no backstop)', async () => {
    const { deps, writes } = world({ identity: fra, contexts: [context()] });
    assert.deepEqual(await reconcile(KEY, deps, log), { kind: 'done' });
    assert.equal(readyOf(writes).reason, 'AddressFamiliesUnknown');
  });

  it('refuses a family the context does not carry, naming it, and waits for its spec (no backstop)', async () => {
    const { deps, writes } = world({
      identity: fra,
      claim: claim(true, ['IPv4', 'IPv6']),
      contexts: [context(['IPv6'])],
    });
    assert.deepEqual(await reconcile(KEY, deps, log), { kind: 'done' });
    const ready = readyOf(writes);
    assert.equal(ready.reason, 'AddressFamilyNotCarried');
    assert.match(ready.message, /IPv4/);
  });

  it("refuses an interface held by another claim and asks for the backstop: that interface's events wake only its holder", async () => {
    const held: NetworkInterface = {
      metadata: { name: 'eth0', namespace: 'ns-1' },
      spec: { network: { name: 'vpc' }, claimRef: { name: 'other' } },
    };
    const { deps, writes } = world({ identity: fra, contexts: [context(['IPv6'])], interfaces: [held] });
    assert.deepEqual(await reconcile(KEY, deps, log), { kind: 'after', ms: BACKSTOP_MS });
    assert.equal(readyOf(writes).reason, 'InterfaceHeldByAnotherClaim');
  });

  it('does nothing for a claim that is gone from the store', async () => {
    const { deps, writes } = world({ identity: fra });
    assert.deepEqual(await reconcile(objectKeyOf('ns-1', 'gone'), deps, log), { kind: 'done' });
    assert.deepEqual(writes, []);
  });
});

describe('which claim events wake the claim controller', () => {
  const before = { ...claim(), metadata: { ...claim().metadata, resourceVersion: '1' } };

  it('ignores a change to the status this controller writes', () => {
    const after = {
      ...before,
      metadata: { ...before.metadata, resourceVersion: '2' },
      status: {
        conditions: [{ type: 'Ready', status: 'False', reason: 'x', message: 'y', lastTransitionTime: 't' }],
      },
    } as NetworkInterfaceClaim;
    assert.equal(inputsChanged({ type: 'MODIFIED', object: after, previous: before }), false);
  });

  it('passes a change to the data-plane conditions it reads', () => {
    const after = {
      ...before,
      status: {
        conditions: [
          { type: 'Programmed', status: 'True', reason: 'x', message: 'y', lastTransitionTime: 't' },
        ],
      },
    } as NetworkInterfaceClaim;
    assert.equal(inputsChanged({ type: 'MODIFIED', object: after, previous: before }), true);
  });

  it('passes a change to the spec or metadata, and every add and delete', () => {
    const relabelled = { ...before, metadata: { ...before.metadata, labels: { a: 'b' } } };
    assert.equal(inputsChanged({ type: 'MODIFIED', object: relabelled, previous: before }), true);
    assert.equal(inputsChanged({ type: 'ADDED', object: before }), true);
    assert.equal(inputsChanged({ type: 'DELETED', object: before }), true);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LOCATION_LABEL, NETWORK_LABEL, NETWORK_UID_LABEL } from '../../apis/common/labels.ts';
import { UPSTREAM_CLUSTER_NAME_LABEL, UPSTREAM_NAMESPACE_LABEL } from '../../apis/common/upstream.ts';
import type { LocationBinding } from '../../apis/networking/v1alpha/location-binding.ts';
import type { NetworkBinding } from '../../apis/networking/v1alpha/network-binding.ts';
import type { NetworkContext } from '../../apis/networking/v1alpha/network-context.ts';
import type { Network } from '../../apis/networking/v1alpha/network.ts';
import { AlreadyExistsError } from '../../client/errors.ts';
import type { KubeObject, ResourceClient } from '../../client/types.ts';
import { BACKSTOP_MS } from '../../runtime/backstop.ts';
import { Store } from '../../runtime/store.ts';
import { namespaceRoutingIndexes } from '../shared/hub-routing.ts';
import { bindingIndexes, type PresenceKey } from './presence-keys.ts';
import { decide, reconcile, type PresenceDeps, type ProjectView } from './presence.ts';

const NOW = Date.parse('2030-01-01T00:00:00Z');
const KEY: PresenceKey = { hubNamespace: 'ns-1', network: 'vpc', location: 'fra' };

interface Write {
  verb: string;
  name: string;
  body?: unknown;
  subresource?: string;
  options?: unknown;
}

let rv = 0;
function stored<T extends KubeObject>(store: Store<T>, ...objects: T[]): Store<T> {
  for (const object of objects)
    store.apply({
      type: 'ADDED',
      object: { ...object, metadata: { ...object.metadata, resourceVersion: `${++rv}` } },
    });
  return store;
}

/** A client recording every write; patches merge shallowly onto what the store holds. */
function recordingClient<T extends KubeObject>(
  store: Store<T>,
  writes: Write[],
  refuseCreate?: () => Error,
): ResourceClient<T> {
  const client = {
    patchMerge(
      name: string,
      namespace: string | undefined,
      body: Record<string, unknown>,
      options: { subresource?: string } = {},
    ) {
      writes.push({ verb: 'patch', name, body, subresource: options.subresource });
      const held = store.get(namespace, name)!;
      const metadata = { ...held.metadata, ...((body.metadata as object) ?? {}) };
      return Promise.resolve({ ...held, ...body, metadata } as T);
    },
    create(object: T) {
      writes.push({ verb: 'create', name: object.metadata.name!, body: object });
      if (refuseCreate) return Promise.reject(refuseCreate());
      return Promise.resolve({ ...object, metadata: { ...object.metadata, uid: 'ctx-uid' } });
    },
    delete(name: string, _namespace: string | undefined, options: unknown) {
      writes.push({ verb: 'delete', name, options });
      return Promise.resolve();
    },
  };
  return client as unknown as ResourceClient<T>;
}

function hubNamespace(name: string, projectNamespace = 'default'): KubeObject {
  return {
    metadata: {
      name,
      labels: {
        [UPSTREAM_CLUSTER_NAME_LABEL]: 'cluster-alpha',
        [UPSTREAM_NAMESPACE_LABEL]: projectNamespace,
      },
    },
  };
}

function binding(
  name: string,
  extra: { namespace?: string; networkNamespace?: string; deleting?: boolean } = {},
): NetworkBinding {
  return {
    metadata: {
      name,
      namespace: extra.namespace ?? KEY.hubNamespace,
      generation: 1,
      ...(extra.deleting && { deletionTimestamp: '2030-01-01T00:00:00Z', finalizers: ['x'] }),
    },
    spec: {
      network: { name: KEY.network, ...(extra.networkNamespace && { namespace: extra.networkNamespace }) },
      location: { name: KEY.location },
    },
  };
}

function network(deleting = false): Network {
  return {
    metadata: {
      name: 'vpc',
      namespace: 'default',
      uid: 'net-uid',
      generation: 3,
      ...(deleting && { deletionTimestamp: '2030-01-01T00:00:00Z', finalizers: ['x'] }),
    },
    spec: { ipFamilies: ['IPv6'] },
  } as Network;
}

function context(
  spec: { network?: string; location?: string; labelled?: boolean; ready?: boolean } = {},
): NetworkContext {
  return {
    metadata: {
      name: 'vpc-fra',
      namespace: 'default',
      uid: 'ctx-uid',
      labels: spec.labelled === false ? {} : { [NETWORK_UID_LABEL]: 'net-uid' },
      ownerReferences: [
        {
          apiVersion: 'networking.datumapis.com/v1alpha',
          kind: 'Network',
          name: 'vpc',
          uid: 'net-uid',
          controller: true,
        },
      ],
    },
    spec: { network: { name: spec.network ?? 'vpc' }, location: { name: spec.location ?? 'fra' } },
    status: spec.ready
      ? {
          conditions: [
            {
              type: 'Ready',
              status: 'True',
              reason: 'Ready',
              message: '',
              lastTransitionTime: '2030-01-01T00:00:00Z',
            },
          ],
        }
      : undefined,
  };
}

interface World {
  bindings?: NetworkBinding[];
  namespaces?: KubeObject[];
  engaged?: boolean;
  listed?: boolean;
  networks?: Network[];
  contexts?: NetworkContext[];
  locations?: string[];
  refuseCreate?: () => Error;
  contextFinalizers?: readonly string[];
}

function world(w: World = {}) {
  const hubWrites: Write[] = [];
  const contextWrites: Write[] = [];
  const bindings = new Store<NetworkBinding>();
  for (const [index, fn] of Object.entries(bindingIndexes)) bindings.addIndex(index, fn);
  stored(bindings, ...(w.bindings ?? [binding('web')]));
  const namespaces = new Store();
  for (const [index, fn] of Object.entries(namespaceRoutingIndexes)) namespaces.addIndex(index, fn);
  stored(namespaces, ...(w.namespaces ?? [hubNamespace(KEY.hubNamespace)]));
  const contexts = stored(new Store<NetworkContext>(), ...(w.contexts ?? []));
  const view: ProjectView = {
    networks: stored(new Store<Network>(), ...(w.networks ?? [network()])),
    contexts,
    locationBindings: stored(
      new Store<LocationBinding>(),
      ...(w.locations ?? ['fra']).map((location) => ({ metadata: { name: location } }) as LocationBinding),
    ),
    contextsClient: recordingClient(contexts, contextWrites, w.refuseCreate),
  };
  const deps: PresenceDeps = {
    config: { contextFinalizers: () => w.contextFinalizers ?? [] },
    bindings,
    namespaces,
    projects: {
      engaged: (project) => project === 'alpha' && w.engaged !== false,
      view: (project) =>
        project === 'alpha' && w.engaged !== false && w.listed !== false ? view : undefined,
    },
    writer: { client: recordingClient(bindings, hubWrites), now: () => NOW },
  };
  return { deps, hubWrites, contextWrites };
}

/** The Ready condition the last status write of `name` carries. */
function readyOf(writes: Write[], name: string) {
  const status = writes.filter((w) => w.name === name && w.subresource === 'status').at(-1)?.body as
    | {
        status: {
          conditions: { type: string; status: string; reason: string; message: string }[];
          networkContextRef?: unknown;
        };
      }
    | undefined;
  assert.ok(status, `a status write on ${name}`);
  return {
    ...status.status.conditions.find((c) => c.type === 'Ready')!,
    ref: status.status.networkContextRef,
  };
}

function labelsWritten(writes: Write[], name: string): Record<string, string> | undefined {
  const patch = writes.find((w) => w.name === name && w.verb === 'patch' && w.subresource === undefined);
  return (patch?.body as { metadata: { labels: Record<string, string> } } | undefined)?.metadata.labels;
}

describe('presence reconcile', () => {
  it('refuses a binding whose hub namespace names no project, stamps its pair and asks for the backstop', async () => {
    const { deps, hubWrites, contextWrites } = world({ namespaces: [] });
    const outcome = await reconcile(KEY, deps);
    assert.deepEqual(outcome, { kind: 'after', ms: BACKSTOP_MS });
    assert.deepEqual(labelsWritten(hubWrites, 'web'), { [NETWORK_LABEL]: 'vpc', [LOCATION_LABEL]: 'fra' });
    assert.equal(readyOf(hubWrites, 'web').reason, 'ProjectUnresolved');
    assert.deepEqual(contextWrites, []);
  });

  it('does nothing for an unroutable pair that no live binding holds', async () => {
    const { deps, hubWrites } = world({ namespaces: [], bindings: [binding('web', { deleting: true })] });
    assert.deepEqual(await reconcile(KEY, deps), { kind: 'done' });
    assert.deepEqual(hubWrites, []);
  });

  it('reports ProjectUnresolved with the backstop while the project plane is not engaged', async () => {
    const { deps, hubWrites, contextWrites } = world({ engaged: false });
    assert.deepEqual(await reconcile(KEY, deps), { kind: 'after', ms: BACKSTOP_MS });
    const ready = readyOf(hubWrites, 'web');
    assert.equal(ready.reason, 'ProjectUnresolved');
    assert.match(ready.message, /alpha/);
    assert.deepEqual(contextWrites, []);
  });

  it('writes nothing while an engaged plane has not listed yet', async () => {
    const { deps, hubWrites, contextWrites } = world({ listed: false });
    assert.deepEqual(await reconcile(KEY, deps), { kind: 'done' });
    assert.deepEqual([...hubWrites, ...contextWrites], []);
  });

  it('refuses a location the project has no LocationBinding for, without a backstop', async () => {
    const { deps, hubWrites, contextWrites } = world({ locations: [] });
    assert.deepEqual(await reconcile(KEY, deps), { kind: 'done' });
    assert.equal(readyOf(hubWrites, 'web').reason, 'LocationNotAvailable');
    assert.deepEqual(contextWrites, []);
  });

  it('refuses a missing Network and a terminating one with different messages and writes no context', async () => {
    const missing = world({ networks: [] });
    await reconcile(KEY, missing.deps);
    const deleting = world({ networks: [network(true)] });
    await reconcile(KEY, deleting.deps);
    const [a, b] = [readyOf(missing.hubWrites, 'web'), readyOf(deleting.hubWrites, 'web')];
    assert.equal(a.reason, 'NetworkNotFound');
    assert.equal(b.reason, 'NetworkNotFound');
    assert.notEqual(a.message, b.message);
    assert.deepEqual([...missing.contextWrites, ...deleting.contextWrites], []);
    assert.equal(
      labelsWritten(missing.hubWrites, 'web')?.[NETWORK_UID_LABEL],
      undefined,
      'no UID without a Network',
    );
  });

  it('creates the context for a served pair after stamping the Network UID, and reports it not ready with its ref', async () => {
    const { deps, hubWrites, contextWrites } = world();
    assert.deepEqual(await reconcile(KEY, deps), { kind: 'done' });
    assert.deepEqual(labelsWritten(hubWrites, 'web'), {
      [NETWORK_LABEL]: 'vpc',
      [LOCATION_LABEL]: 'fra',
      [NETWORK_UID_LABEL]: 'net-uid',
    });
    assert.deepEqual(
      contextWrites.map((w) => [w.verb, w.name]),
      [['create', 'vpc-fra']],
    );
    const created = contextWrites[0].body as NetworkContext;
    assert.equal(created.metadata.namespace, 'default');
    assert.equal(created.metadata.labels?.[NETWORK_UID_LABEL], 'net-uid');
    const ready = readyOf(hubWrites, 'web');
    assert.equal(ready.status, 'False');
    assert.equal(ready.reason, 'NetworkContextNotReady');
    assert.deepEqual(ready.ref, { namespace: 'default', name: 'vpc-fra' });
    const stampAt = hubWrites.findIndex((w) => w.subresource === undefined);
    const reportAt = hubWrites.findIndex((w) => w.subresource === 'status');
    assert.ok(stampAt < reportAt, 'labels are stamped before the report');
  });

  it('creates a context with the configured finalizers, and never adds them to one that exists', async () => {
    const finalizers = ['example.com/mirror', 'example.com/range'];
    const fresh = world({ contextFinalizers: finalizers });
    await reconcile(KEY, fresh.deps);
    assert.deepEqual((fresh.contextWrites[0].body as NetworkContext).metadata.finalizers, finalizers);
    const alone = world();
    await reconcile(KEY, alone.deps);
    assert.equal(
      (alone.contextWrites[0].body as NetworkContext).metadata.finalizers,
      undefined,
      'none alone',
    );
    const held = world({ contextFinalizers: finalizers, contexts: [context({ ready: true })] });
    await reconcile(KEY, held.deps);
    assert.ok(
      held.contextWrites.every((w) => !JSON.stringify(w.body).includes('finalizers')),
      'an existing context gets no finalizer from presence',
    );
  });

  it('reports Ready on every holder once the context is Ready', async () => {
    const { deps, hubWrites } = world({
      bindings: [binding('web'), binding('db')],
      contexts: [context({ ready: true })],
    });
    assert.deepEqual(await reconcile(KEY, deps), { kind: 'done' });
    for (const name of ['web', 'db']) {
      const ready = readyOf(hubWrites, name);
      assert.equal(ready.status, 'True');
      assert.equal(ready.reason, 'NetworkContextReady');
    }
  });

  it('refuses a context name taken by another pair and leaves that context alone', async () => {
    const { deps, hubWrites, contextWrites } = world({
      contexts: [context({ network: 'vpc-fra', location: '' })],
    });
    assert.deepEqual(await reconcile(KEY, deps), { kind: 'done' });
    assert.equal(readyOf(hubWrites, 'web').reason, 'NetworkContextNameConflict');
    assert.deepEqual(contextWrites, []);
  });

  it('asks to run again at once when a create finds the context name already taken', async () => {
    const { deps, hubWrites } = world({
      refuseCreate: () => new AlreadyExistsError(409, { reason: 'AlreadyExists', message: 'exists' }),
    });
    assert.deepEqual(await reconcile(KEY, deps), { kind: 'requeue' });
    assert.equal(
      hubWrites.filter((w) => w.subresource === 'status').length,
      0,
      'no readiness is reported without a context',
    );
  });

  it('refuses a binding naming another project namespace and tears down the context it does not hold', async () => {
    const { deps, hubWrites, contextWrites } = world({
      bindings: [binding('web', { networkNamespace: 'other' })],
      contexts: [context()],
    });
    assert.deepEqual(await reconcile(KEY, deps), { kind: 'done' });
    const ready = readyOf(hubWrites, 'web');
    assert.equal(ready.reason, 'NetworkNotFound');
    assert.match(ready.message, /other/);
    assert.deepEqual(
      contextWrites.map((w) => [w.verb, w.name, w.options]),
      [['delete', 'vpc-fra', { preconditions: { uid: 'ctx-uid' } }]],
    );
  });

  it('deletes an unheld context only when this controller wrote it', async () => {
    const ours = world({ bindings: [], contexts: [context()] });
    assert.deepEqual(await reconcile(KEY, ours.deps), { kind: 'done' });
    assert.deepEqual(
      ours.contextWrites.map((w) => w.verb),
      ['delete'],
    );
    const foreign = world({ bindings: [], contexts: [context({ labelled: false })] });
    await reconcile(KEY, foreign.deps);
    assert.deepEqual(foreign.contextWrites, []);
  });

  it('keeps an unheld context that a binding in another hub namespace of the same project namespace holds', async () => {
    const { deps, contextWrites } = world({
      bindings: [binding('web', { namespace: 'ns-2' })],
      namespaces: [hubNamespace(KEY.hubNamespace), hubNamespace('ns-2')],
      contexts: [context()],
    });
    assert.deepEqual(await reconcile(KEY, deps), { kind: 'done' });
    assert.deepEqual(contextWrites, []);
  });

  it('decides from the stores alone: deciding writes nothing, and names the holders, their labels and the context to project', () => {
    const { deps, hubWrites, contextWrites } = world({
      bindings: [binding('web'), binding('lost', { networkNamespace: 'other' })],
    });
    const decision = decide(KEY, deps);
    assert.deepEqual([...hubWrites, ...contextWrites], []);
    assert.deepEqual(
      decision.misdirected.map(({ binding: b, outcome }) => [b.metadata.name, outcome.reason]),
      [['lost', 'NetworkNotFound']],
    );
    assert.deepEqual(
      decision.holders?.bindings.map((b) => b.metadata.name),
      ['web'],
    );
    assert.equal(decision.holders?.labels[NETWORK_UID_LABEL], 'net-uid');
    assert.equal(decision.holders?.outcome, undefined, 'readiness waits for the projected context');
    assert.equal(decision.project?.existing, undefined);
    assert.equal(decision.teardown, undefined);
    assert.deepEqual(decision.next, { kind: 'done' });
  });
});

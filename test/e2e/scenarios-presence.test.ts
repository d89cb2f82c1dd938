/**
 * Scenarios 29–46 (scenarios.md §5): the presence controller alone against the embedded API
 * server, on fixture P. Objects another controller would write (a context's Ready) are written
 * by the test.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LOCATION_LABEL, NETWORK_LABEL, NETWORK_UID_LABEL } from '../../src/apis/common/labels.ts';
import {
  UPSTREAM_CLUSTER_NAME_LABEL,
  UPSTREAM_NAMESPACE_LABEL,
  hubNamespaceName,
  upstreamClusterName,
} from '../../src/apis/common/upstream.ts';
import type { NetworkBinding } from '../../src/apis/networking/v1alpha/network-binding.ts';
import type { NetworkContext } from '../../src/apis/networking/v1alpha/network-context.ts';
import type { Network } from '../../src/apis/networking/v1alpha/network.ts';
import { isInvalid } from '../../src/client/errors.ts';
import { resourceClient } from '../../src/client/resource-client.ts';
import { presenceController } from '../../src/controllers/hub/presence.ts';
import { BACKSTOP_MS } from '../../src/runtime/backstop.ts';
import { networkController } from '../../src/controllers/project/network.ts';
import { networkContextController } from '../../src/controllers/project/networkcontext.ts';
import { FakeClock } from '../../src/runtime/clock.ts';
import type { Controller } from '../../src/runtime/controller.ts';
import {
  binding,
  C,
  createLocationBinding,
  createNetwork,
  fixtureP,
  NAMESPACES,
  NETWORK_BINDINGS,
  readyOf,
  VPC,
  type FixturePOptions,
} from '../support/hub-fixtures.ts';
import {
  addUnreadyProject,
  ALPHA,
  LOCATION_BINDINGS,
  markProjectReady,
  NETWORK_CONTEXTS,
  NETWORKS,
  planeOf,
  quiet,
  reconcileCount,
  runController,
  until,
  US_CENTRAL_1,
  WITHIN,
  writeCondition,
} from '../support/project-fixtures.ts';
import { startScenario, type Scenario } from '../support/scenario.ts';

const PRESENCE = presenceController.name;
const PLANE = planeOf(ALPHA);

/** Runs `body` on fixture P with only the presence controller, then tears it down. */
async function onFixtureP(
  options: FixturePOptions & { clock?: FakeClock; presence?: boolean },
  body: (s: Scenario, H: string) => Promise<void>,
): Promise<void> {
  const s = await startScenario({
    projects: [ALPHA],
    controllers: options.presence === false ? [] : [presenceController],
    clock: options.clock,
  });
  try {
    const H = await fixtureP(s, options);
    await body(s, H);
  } finally {
    await s.stop();
  }
}

const bindings = (s: Scenario) => s.client<NetworkBinding>('hub', NETWORK_BINDINGS);
const contexts = (s: Scenario, project = ALPHA) =>
  s.client<NetworkContext>(planeOf(project), NETWORK_CONTEXTS);
const networks = (s: Scenario) => s.client<Network>(PLANE, NETWORKS);

/** Waits for binding `name` in `H` to report `reason`; returns it. */
async function reported(
  s: Scenario,
  H: string,
  name: string,
  reason: string,
  what = reason,
): Promise<NetworkBinding> {
  let found: NetworkBinding | undefined;
  await until(
    async () => {
      found = await bindings(s).get(name, H);
      return readyOf(found)?.reason === reason;
    },
    WITHIN,
    `binding ${name} to report ${what}`,
  );
  return found!;
}

async function contextExists(s: Scenario, project = ALPHA, name = C): Promise<NetworkContext> {
  let found: NetworkContext | undefined;
  await until(
    async () => (found = await contexts(s, project).get(name, 'default')) !== undefined,
    WITHIN,
    `context ${name}`,
  );
  return found!;
}

async function requeues(s: Scenario): Promise<number> {
  const metric = await s.ctx.metrics.reconcileTotal.get();
  return metric.values
    .filter((v) => v.labels.controller === PRESENCE && v.labels.result === 'requeue_after')
    .reduce((sum, v) => sum + v.value, 0);
}

/** Asserts that advancing the fake clock by just under the backstop reconciles nothing, and by the backstop does. */
async function assertBackstop(s: Scenario, clock: FakeClock): Promise<void> {
  await quiet(s.ctx, PRESENCE, 0);
  const before = await reconcileCount(s.ctx, PRESENCE);
  await clock.advance(BACKSTOP_MS - 1);
  await quiet(s.ctx, PRESENCE, before - 1, 1000);
  assert.equal(await reconcileCount(s.ctx, PRESENCE), before, 'nothing is reconciled before the backstop');
  await clock.advance(1);
  await until(async () => (await reconcileCount(s.ctx, PRESENCE)) > before, WITHIN, 'the backstop to fire');
}

/** Scenario 29's outcome: `web` created on fixture P with vpc at [IPv6, IPv4], MTU 8000. */
async function givenScenario29(s: Scenario, H: string): Promise<NetworkContext> {
  await bindings(s).create(binding('web', H, VPC));
  const context = await contextExists(s);
  await reported(s, H, 'web', 'NetworkContextNotReady');
  return context;
}

const dualStack: FixturePOptions = { network: { ipFamilies: ['IPv6', 'IPv4'], mtu: 8000 } };

describe('presence', () => {
  it('S29 the context carries the network rules', () =>
    onFixtureP(dualStack, async (s, H) => {
      await bindings(s).create(binding('web', H, VPC));
      const context = await contextExists(s);
      const vpc = (await networks(s).get(VPC, 'default'))!;
      assert.deepEqual(context.spec.ipFamilies, ['IPv6', 'IPv4']);
      assert.equal(context.spec.mtu, 8000);
      assert.equal(context.spec.networkGeneration, vpc.metadata.generation);
      assert.deepEqual(context.metadata.labels, {
        [UPSTREAM_CLUSTER_NAME_LABEL]: 'cluster-project-alpha',
        [UPSTREAM_NAMESPACE_LABEL]: 'default',
        [NETWORK_LABEL]: VPC,
        [LOCATION_LABEL]: US_CENTRAL_1,
        [NETWORK_UID_LABEL]: vpc.metadata.uid,
      });
      assert.deepEqual(context.metadata.ownerReferences, [
        {
          apiVersion: 'networking.datumapis.com/v1alpha',
          kind: 'Network',
          name: VPC,
          uid: vpc.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      const hubContexts = await s.client('hub', NETWORK_CONTEXTS).list();
      assert.equal(hubContexts.items.length, 0, 'no context is written in the hub');
    }));

  it('S30 binding labels are stamped', () =>
    onFixtureP({}, async (s, H) => {
      await bindings(s).create(binding('web', H, VPC));
      const vpc = (await networks(s).get(VPC, 'default'))!;
      const expected = {
        [NETWORK_LABEL]: VPC,
        [LOCATION_LABEL]: US_CENTRAL_1,
        [NETWORK_UID_LABEL]: vpc.metadata.uid!,
      };
      await until(
        async () => {
          const labels = (await bindings(s).get('web', H))?.metadata.labels ?? {};
          return Object.entries(expected).every(([key, value]) => labels[key] === value);
        },
        WITHIN,
        'web to carry the three labels',
      );
      await bindings(s).create(
        binding('mislabelled', H, VPC, US_CENTRAL_1, { labels: { [NETWORK_LABEL]: 'other' } }),
      );
      const served = await reported(s, H, 'mislabelled', 'NetworkContextNotReady', 'being served as vpc');
      assert.equal(served.metadata.labels?.[NETWORK_LABEL], VPC);
      assert.deepEqual(served.status?.networkContextRef, { namespace: 'default', name: C });
    }));

  it('S31 not ready, then ready, then regressed', () =>
    onFixtureP(dualStack, async (s, H) => {
      await givenScenario29(s, H);
      await quiet(s.ctx, PRESENCE, 0);
      const web = (await bindings(s).get('web', H))!;
      const ready = readyOf(web)!;
      assert.equal(ready.status, 'False');
      assert.equal(ready.message, 'Network context is not ready.');
      assert.equal(ready.observedGeneration, web.metadata.generation);
      assert.deepEqual(web.status?.networkContextRef, { namespace: 'default', name: C });
      assert.equal(await requeues(s), 0, 'no requeue is scheduled');

      await writeCondition(contexts(s), C, 'default', 'Ready', 'True', 'Ready');
      const readyWeb = await reported(s, H, 'web', 'NetworkContextReady');
      assert.equal(readyOf(readyWeb)!.status, 'True');
      assert.equal(readyOf(readyWeb)!.message, 'Network context is ready.');

      await writeCondition(contexts(s), C, 'default', 'Ready', 'False', 'Anything');
      const regressed = await reported(s, H, 'web', 'NetworkContextNotReady');
      assert.deepEqual(regressed.status?.networkContextRef, { namespace: 'default', name: C });
    }));

  it('S32 a binding without a LocationBinding is refused, and served once one is created', () =>
    onFixtureP({ locationBinding: false }, async (s, H) => {
      await bindings(s).create(binding('web', H, VPC));
      const web = await reported(s, H, 'web', 'LocationNotAvailable');
      assert.equal(readyOf(web)!.status, 'False');
      assert.equal(
        readyOf(web)!.message,
        'Project "project-alpha" has no location binding for location "us-central-1"',
      );
      await quiet(s.ctx, PRESENCE, 0);
      assert.equal(await contexts(s).get(C, 'default'), undefined, 'no context exists');
      assert.equal(await requeues(s), 0, 'no requeue is scheduled');

      await createLocationBinding(s, ALPHA, US_CENTRAL_1);
      await contextExists(s);
      await reported(s, H, 'web', 'NetworkContextNotReady');
    }));

  it('S33 a withdrawn LocationBinding makes a Ready binding LocationNotAvailable and keeps its context', () =>
    onFixtureP(dualStack, async (s, H) => {
      await givenScenario29(s, H);
      await writeCondition(contexts(s), C, 'default', 'Ready', 'True', 'Ready');
      await reported(s, H, 'web', 'NetworkContextReady');
      await s.client(PLANE, LOCATION_BINDINGS).delete(US_CENTRAL_1);
      const web = await reported(s, H, 'web', 'LocationNotAvailable');
      assert.deepEqual(web.status?.networkContextRef, { namespace: 'default', name: C });
      assert.ok(await contexts(s).get(C, 'default'), 'context C still exists');
    }));

  it('S34 network missing, then created', () =>
    onFixtureP({ network: false }, async (s, H) => {
      await bindings(s).create(binding('web', H, VPC));
      const web = await reported(s, H, 'web', 'NetworkNotFound');
      assert.equal(
        readyOf(web)!.message,
        'Network "vpc" was not found in namespace "default" of project "project-alpha"',
      );
      assert.equal(await contexts(s).get(C, 'default'), undefined, 'no context');
      await createNetwork(s, ALPHA, VPC);
      await contextExists(s);
    }));

  it('S35 a Network being deleted refuses its bindings and never gets a new context', () =>
    onFixtureP(dualStack, async (s, H) => {
      await givenScenario29(s, H);
      await networks(s).patchMerge(VPC, 'default', { metadata: { finalizers: ['test/hold'] } });
      await networks(s).delete(VPC, 'default');
      await contexts(s).delete(C, 'default');
      const web = await reported(s, H, 'web', 'NetworkNotFound');
      assert.equal(
        readyOf(web)!.message,
        'Network "vpc" in namespace "default" of project "project-alpha" is being deleted',
      );
      const since = await reconcileCount(s.ctx, PRESENCE);
      await bindings(s).patchMerge('web', H, { spec: { consumer: { name: 'nudge' } } });
      await quiet(s.ctx, PRESENCE, since);
      assert.equal(await contexts(s).get(C, 'default'), undefined, 'C is not recreated');
      await networks(s).patchMerge(VPC, 'default', { metadata: { finalizers: null } });
    }));

  it('S36 a binding naming another project namespace is refused and holds no context', () =>
    onFixtureP({}, async (s, H) => {
      await bindings(s).create(binding('web', H, VPC));
      await bindings(s).create(binding('odd', H, VPC, US_CENTRAL_1, { networkNamespace: 'other' }));
      const odd = await reported(s, H, 'odd', 'NetworkNotFound');
      assert.equal(
        readyOf(odd)!.message,
        'Network "vpc" was not found in namespace "other" of project "project-alpha": bindings in this namespace can only use networks in namespace "default"',
      );
      await reported(s, H, 'web', 'NetworkContextNotReady');
      await contextExists(s);
      await bindings(s).delete('web', H);
      await until(async () => (await contexts(s).get(C, 'default')) === undefined, WITHIN, 'C to be deleted');
    }));

  it('S37 a binding in a hub namespace naming no project is refused and retried by the backstop', async () => {
    const clock = new FakeClock(Date.parse('2030-01-01T00:00:00Z'));
    await onFixtureP({ clock }, async (s, _H) => {
      const namespaces = s.client('hub', NAMESPACES);
      await namespaces.create({ metadata: { name: 'plain' } });
      await bindings(s).create(binding('web', 'plain', VPC));
      const web = await reported(s, 'plain', 'web', 'ProjectUnresolved');
      assert.equal(
        readyOf(web)!.message,
        'namespace "plain" carries no meta.datumapis.com/upstream-cluster-name label',
      );
      await assertBackstop(s, clock);

      await namespaces.create({
        metadata: { name: 'half', labels: { [UPSTREAM_NAMESPACE_LABEL]: 'default' } },
      });
      await bindings(s).create(binding('web', 'half', VPC));
      const half = await reported(s, 'half', 'web', 'ProjectUnresolved');
      assert.equal(
        readyOf(half)!.message,
        'namespace "half" carries no meta.datumapis.com/upstream-cluster-name label',
      );

      // The scenario's `cluster-` is not a valid label value (it must end alphanumeric): the API
      // server refuses it 422, as Kubernetes does, so no hub namespace can carry it and the
      // "names no project" message is reached only by a store that skipped validation
      // (hub-routing.test.ts covers that branch).
      await assert.rejects(
        namespaces.create({
          metadata: {
            name: 'nameless',
            labels: { [UPSTREAM_CLUSTER_NAME_LABEL]: 'cluster-', [UPSTREAM_NAMESPACE_LABEL]: 'default' },
          },
        }),
        (err: unknown) => isInvalid(err),
      );

      await namespaces.patchMerge('plain', undefined, {
        metadata: {
          labels: {
            [UPSTREAM_CLUSTER_NAME_LABEL]: upstreamClusterName(ALPHA),
            [UPSTREAM_NAMESPACE_LABEL]: 'default',
          },
        },
      });
      await contextExists(s);
    });
  });

  it('S38 a binding for a project not engaged is refused until its plane is engaged', async () => {
    const clock = new FakeClock(Date.parse('2030-01-01T00:00:00Z'));
    await onFixtureP({ clock }, async (s) => {
      const beta = 'project-beta';
      const betaConfig = await addUnreadyProject(s, beta);
      const betaNamespace = (await resourceClient(betaConfig, NAMESPACES).get('default'))!;
      const H = hubNamespaceName(betaNamespace.metadata.uid!);
      await s.client('hub', NAMESPACES).create({
        metadata: {
          name: H,
          labels: {
            [UPSTREAM_CLUSTER_NAME_LABEL]: upstreamClusterName(beta),
            [UPSTREAM_NAMESPACE_LABEL]: 'default',
          },
        },
      });
      await bindings(s).create(binding('web', H, VPC));
      const web = await reported(s, H, 'web', 'ProjectUnresolved');
      assert.equal(readyOf(web)!.message, 'Project "project-beta" is not engaged by this operator');
      await assertBackstop(s, clock);

      await resourceClient<Network>(betaConfig, NETWORKS).create({
        metadata: { name: VPC, namespace: 'default' },
        spec: { ipam: { mode: 'Auto' } },
      });
      await resourceClient(betaConfig, LOCATION_BINDINGS).create({
        metadata: { name: US_CENTRAL_1 },
        spec: { locationRef: { name: US_CENTRAL_1 } },
      });
      await markProjectReady(s, beta);
      await until(
        async () => (await resourceClient(betaConfig, NETWORK_CONTEXTS).get(C, 'default')) !== undefined,
        WITHIN,
        'project-beta context',
      );
    });
  });

  it('S39 two bindings for one pair share one context and both report the same readiness', () =>
    onFixtureP({}, async (s, H) => {
      await bindings(s).create(binding('web', H, VPC));
      await bindings(s).create(binding('lb', H, VPC));
      const web = await reported(s, H, 'web', 'NetworkContextNotReady');
      const lb = await reported(s, H, 'lb', 'NetworkContextNotReady');
      const { items } = await contexts(s).list({ namespace: 'default' });
      assert.deepEqual(
        items.map((context) => context.metadata.name),
        [C],
        'exactly one context',
      );
      assert.deepEqual(web.status?.networkContextRef, lb.status?.networkContextRef);
      const { lastTransitionTime: _a, observedGeneration: _b, ...webReady } = readyOf(web)!;
      const { lastTransitionTime: _c, observedGeneration: _d, ...lbReady } = readyOf(lb)!;
      assert.deepEqual(webReady, lbReady);
    }));

  it('S40 the last consumer leaving deletes the context, never the hub copy', () =>
    onFixtureP({}, async (s, H) => {
      await bindings(s).create(binding('web', H, VPC));
      await bindings(s).create(binding('lb', H, VPC));
      await reported(s, H, 'web', 'NetworkContextNotReady');
      await reported(s, H, 'lb', 'NetworkContextNotReady');
      const vpc = (await networks(s).get(VPC, 'default'))!;
      const hubContext = await s.client<NetworkContext>('hub', NETWORK_CONTEXTS).create({
        metadata: {
          name: C,
          namespace: H,
          labels: {
            [NETWORK_LABEL]: VPC,
            [LOCATION_LABEL]: US_CENTRAL_1,
            [NETWORK_UID_LABEL]: vpc.metadata.uid!,
          },
        },
        spec: { network: { name: VPC }, location: { name: US_CENTRAL_1 } },
      });
      await quiet(s.ctx, PRESENCE, 0);
      const webBefore = (await bindings(s).get('web', H))!;

      const since = await reconcileCount(s.ctx, PRESENCE);
      await bindings(s).delete('lb', H);
      await quiet(s.ctx, PRESENCE, since);
      assert.ok(await contexts(s).get(C, 'default'), 'C remains');
      assert.equal(
        (await bindings(s).get('web', H))!.metadata.resourceVersion,
        webBefore.metadata.resourceVersion,
      );

      await bindings(s).delete('web', H);
      await until(async () => (await contexts(s).get(C, 'default')) === undefined, WITHIN, 'C to be deleted');
      const untouched = await s.client('hub', NETWORK_CONTEXTS).get(C, H);
      assert.equal(
        untouched?.metadata.resourceVersion,
        hubContext.metadata.resourceVersion,
        'the hub context is untouched',
      );
    }));

  it('S41 a binding being deleted no longer holds', () =>
    onFixtureP(dualStack, async (s, H) => {
      await givenScenario29(s, H);
      await bindings(s).patchMerge('web', H, { metadata: { finalizers: ['test/keep'] } });
      await bindings(s).delete('web', H);
      await until(async () => (await contexts(s).get(C, 'default')) === undefined, WITHIN, 'C to be deleted');
      assert.ok((await bindings(s).get('web', H))?.metadata.deletionTimestamp, 'web is still terminating');
      await bindings(s).patchMerge('web', H, { metadata: { finalizers: null } });
    }));

  it('S42 Network edits reach the context without any binding event', () =>
    onFixtureP(dualStack, async (s, H) => {
      const before = await givenScenario29(s, H);
      await networks(s).patchMerge(VPC, 'default', { spec: { mtu: 8856, ipFamilies: ['IPv6'] } });
      await until(
        async () => {
          const context = await contexts(s).get(C, 'default');
          return (
            context?.spec.mtu === 8856 &&
            JSON.stringify(context.spec.ipFamilies) === '["IPv6"]' &&
            context.spec.networkGeneration! > before.spec.networkGeneration!
          );
        },
        WITHIN,
        'C to follow the network',
      );
    }));

  it('S43 a context deleted by hand is rebuilt, after its finalizers when it has some', () =>
    onFixtureP(dualStack, async (s, H) => {
      const first = await givenScenario29(s, H);
      await contexts(s).delete(C, 'default');
      await until(
        async () => {
          const context = await contexts(s).get(C, 'default');
          return context !== undefined && context.metadata.uid !== first.metadata.uid;
        },
        WITHIN,
        'C to be recreated',
      );

      const second = (await contexts(s).get(C, 'default'))!;
      await contexts(s).patchMerge(C, 'default', { metadata: { finalizers: ['test/slow'] } });
      await contexts(s).delete(C, 'default');
      const web = await reported(s, H, 'web', 'NetworkContextNotReady');
      await until(
        async () => readyOf(await bindings(s).get('web', H))?.message === 'Network context is being deleted.',
        WITHIN,
        'web to say the context is being deleted',
      );
      assert.ok(web);
      const since = await reconcileCount(s.ctx, PRESENCE);
      await quiet(s.ctx, PRESENCE, since - 1, 1000);
      assert.equal(readyOf(await bindings(s).get('web', H))!.message, 'Network context is being deleted.');
      await contexts(s).patchMerge(C, 'default', { metadata: { finalizers: null } });
      await until(
        async () => {
          const context = await contexts(s).get(C, 'default');
          return context !== undefined && context.metadata.uid !== second.metadata.uid;
        },
        WITHIN,
        'a new C',
      );
    }));

  it('S44 a pair whose context name is taken is refused until the other pair leaves', () =>
    onFixtureP({}, async (s, H) => {
      await createLocationBinding(s, ALPHA, 'central-1');
      await createNetwork(s, ALPHA, 'web-us');
      const web = await createNetwork(s, ALPHA, 'web');
      await bindings(s).create(binding('b1', H, 'web-us', 'central-1'));
      const collided = 'web-us-central-1';
      const before = await contextExists(s, ALPHA, collided);
      await bindings(s).create(binding('b2', H, 'web', US_CENTRAL_1));
      const b2 = await reported(s, H, 'b2', 'NetworkContextNameConflict');
      assert.equal(
        readyOf(b2)!.message,
        'Network context "web-us-central-1" in namespace "default" of project "project-alpha" already serves network "web-us" in location "central-1"; network "web" in location "us-central-1" derives the same name',
      );
      assert.equal(b2.status?.networkContextRef, undefined);
      const unchanged = (await contexts(s).get(collided, 'default'))!;
      assert.deepEqual(unchanged.spec, before.spec);
      assert.deepEqual(unchanged.metadata.ownerReferences, before.metadata.ownerReferences);

      await bindings(s).delete('b1', H);
      await until(
        async () => {
          const context = await contexts(s).get(collided, 'default');
          return (
            context !== undefined &&
            context.metadata.uid !== before.metadata.uid &&
            context.spec.network.name === 'web' &&
            context.spec.location.name === US_CENTRAL_1 &&
            context.metadata.ownerReferences?.[0]?.uid === web.metadata.uid
          );
        },
        WITHIN,
        'the context to be recreated for web in us-central-1',
      );
      await until(
        async () => (await bindings(s).get('b2', H))?.status?.networkContextRef?.name === collided,
        WITHIN,
        'b2 to get its ref',
      );
    }));

  it('S45 teardown spares contexts it did not write', () =>
    onFixtureP({ presence: false }, async (s, H) => {
      const key = { hubNamespace: H, network: VPC, location: US_CENTRAL_1 };
      await contexts(s).create({
        metadata: { name: C, namespace: 'default' },
        spec: { network: { name: VPC }, location: { name: US_CENTRAL_1 } },
      });
      const presence = (await runController(s.ctx, presenceController)) as Controller<typeof key>;
      try {
        await quiet(s.ctx, PRESENCE, -1, 2000).catch(() => undefined);
        const since = await reconcileCount(s.ctx, PRESENCE);
        presence.enqueue(key);
        await quiet(s.ctx, PRESENCE, since);
        assert.ok(await contexts(s).get(C, 'default'), 'a context without network-uid still exists');

        await contexts(s).delete(C, 'default');
        const vpc = (await networks(s).get(VPC, 'default'))!;
        await contexts(s).create({
          metadata: { name: C, namespace: 'default', labels: { [NETWORK_UID_LABEL]: vpc.metadata.uid! } },
          spec: { network: { name: 'vpcx' }, location: { name: US_CENTRAL_1 } },
        });
        const again = await reconcileCount(s.ctx, PRESENCE);
        presence.enqueue(key);
        await quiet(s.ctx, PRESENCE, again);
        assert.ok(await contexts(s).get(C, 'default'), 'a context serving another network still exists');
      } finally {
        await presence.stop();
      }
    }));

  it('S46 observedGeneration follows the binding', () =>
    onFixtureP(dualStack, async (s, H) => {
      await givenScenario29(s, H);
      await writeCondition(contexts(s), C, 'default', 'Ready', 'True', 'Ready');
      const before = readyOf(await reported(s, H, 'web', 'NetworkContextReady'))!;
      const edited = await bindings(s).patchMerge('web', H, { spec: { consumer: { name: 'web-2' } } });
      assert.equal(edited.metadata.generation, 2);
      await until(
        async () => readyOf(await bindings(s).get('web', H))?.observedGeneration === 2,
        WITHIN,
        'Ready to observe generation 2',
      );
      const after = readyOf(await bindings(s).get('web', H))!;
      assert.deepEqual(
        { ...after, observedGeneration: before.observedGeneration },
        before,
        'no other change',
      );
    }));

  it('with the project controllers, a binding becomes Ready once its context holds its /64', async () => {
    const s = await startScenario({
      projects: [ALPHA],
      controllers: [networkController, networkContextController, presenceController],
    });
    try {
      const H = await fixtureP(s);
      await bindings(s).create(binding('web', H, VPC));
      let web: NetworkBinding | undefined;
      await until(
        async () => readyOf((web = await bindings(s).get('web', H)))?.reason === 'NetworkContextReady',
        10_000,
        'web to become Ready through the project controllers',
      );
      assert.equal(readyOf(web)!.status, 'True');
      assert.deepEqual(web!.status?.networkContextRef, { namespace: 'default', name: C });
      const context = (await contexts(s).get(C, 'default'))!;
      assert.equal(context.status?.ipam?.ipv6SubnetRef?.name, `${C}-ipv6`);
    } finally {
      await s.stop();
    }
  });
});

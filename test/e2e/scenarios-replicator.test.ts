/**
 * Scenarios 47–51 (scenarios.md §6): the replicator alone, mirroring project-plane contexts and
 * subnets of `project-alpha` into the hub. The sources are written by the test. Scenarios 138–139
 * (ours): the replicator as the manager runs it, beside the networkcontext controller, where a
 * context's first copy awaits its Subnet's; the decisions that controller would write are
 * written by the test.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seededStatus } from '../../src/apis/common/condition.ts';
import { LOCATION_LABEL, NETWORK_LABEL, NETWORK_UID_LABEL } from '../../src/apis/common/labels.ts';
import {
  hubNamespaceName,
  UPSTREAM_CLUSTER_NAME_LABEL,
  UPSTREAM_GROUP_LABEL,
  UPSTREAM_KIND_LABEL,
  UPSTREAM_NAME_LABEL,
  UPSTREAM_NAMESPACE_LABEL,
} from '../../src/apis/common/upstream.ts';
import {
  HUB_REPLICATOR_FINALIZER,
  type NetworkContext,
} from '../../src/apis/networking/v1alpha/network-context.ts';
import type { Subnet } from '../../src/apis/networking/v1alpha/subnet.ts';
import {
  CPP_NAME_ANNOTATION,
  CPP_PERMANENT_ID_LABEL,
} from '../../src/apis/policy/v1alpha1/cluster-propagation-policy.ts';
import type { KubeObject } from '../../src/client/types.ts';
import type { ControllerDefinition } from '../../src/runtime/manager-context.ts';
import {
  managerReplicatorController,
  replicatorController,
} from '../../src/controllers/project/replicator.ts';
import { C, NAMESPACES, VPC } from '../support/hub-fixtures.ts';
import {
  ALPHA,
  NETWORK_CONTEXTS,
  planeOf,
  SUBNETS,
  until,
  US_CENTRAL_1,
  WITHIN,
  writeCondition,
} from '../support/project-fixtures.ts';
import { startScenario, type Scenario } from '../support/scenario.ts';

const PLANE = planeOf(ALPHA);
const SUBNET = `${C}-ipv6`;

async function withReplicator(
  body: (s: Scenario, H: string) => Promise<void>,
  replicator: ControllerDefinition = replicatorController,
): Promise<void> {
  const s = await startScenario({ projects: [ALPHA], controllers: [replicator] });
  try {
    const namespace = (await s.client(PLANE, NAMESPACES).get('default'))!;
    await body(s, hubNamespaceName(namespace.metadata.uid!));
  } finally {
    await s.stop();
  }
}

const sourceLabels = {
  [NETWORK_LABEL]: VPC,
  [LOCATION_LABEL]: US_CENTRAL_1,
  [NETWORK_UID_LABEL]: 'uid-of-vpc',
};

async function createContext(
  s: Scenario,
  name = C,
  ipFamilies: ('IPv6' | 'IPv4')[] = ['IPv6'],
): Promise<NetworkContext> {
  return s.client<NetworkContext>(PLANE, NETWORK_CONTEXTS).create({
    metadata: { name, namespace: 'default', labels: sourceLabels },
    spec: {
      network: { name: VPC },
      location: { name: US_CENTRAL_1 },
      ipFamilies,
      mtu: 1460,
      networkGeneration: 1,
    },
  });
}

async function createSubnet(s: Scenario): Promise<Subnet> {
  return s.client<Subnet>(PLANE, SUBNETS).create({
    metadata: {
      name: SUBNET,
      namespace: 'default',
      labels: { [NETWORK_LABEL]: VPC, [LOCATION_LABEL]: US_CENTRAL_1 },
    },
    spec: {
      subnetClass: 'private',
      networkContext: { name: C },
      location: { name: US_CENTRAL_1 },
      ipFamily: 'IPv6',
      startAddress: 'fd20::',
      prefixLength: 64,
    },
  });
}

/** Waits for the hub copy `name` in `H` to satisfy `check`; returns it. */
async function copy<T extends KubeObject>(
  s: Scenario,
  id: typeof NETWORK_CONTEXTS,
  H: string,
  name: string,
  check: (copy: T) => boolean = () => true,
  what = `hub copy ${name}`,
): Promise<T> {
  let found: T | undefined;
  await until(
    async () => {
      found = await s.client<T>('hub', id).get(name, H);
      return found !== undefined && check(found);
    },
    WITHIN,
    what,
  );
  return found!;
}

/** Waits for the source `name` to carry the replicator's finalizer: its first pass has run. */
async function finalized(s: Scenario, id: typeof NETWORK_CONTEXTS, name: string): Promise<void> {
  await until(
    async () =>
      (await s.client(PLANE, id).get(name, 'default'))?.metadata.finalizers?.includes(
        HUB_REPLICATOR_FINALIZER,
      ) === true,
    WITHIN,
    `${id.kind} ${name} to carry the hub-replicator finalizer`,
  );
}

function expectedLabels(kind: string, name: string): Record<string, string> {
  return {
    [NETWORK_LABEL]: VPC,
    [LOCATION_LABEL]: US_CENTRAL_1,
    [UPSTREAM_CLUSTER_NAME_LABEL]: 'cluster-project-alpha',
    [UPSTREAM_NAMESPACE_LABEL]: 'default',
    [UPSTREAM_GROUP_LABEL]: 'networking.datumapis.com',
    [UPSTREAM_KIND_LABEL]: kind,
    [UPSTREAM_NAME_LABEL]: name,
  };
}

describe('replicator', () => {
  it('S47 hub copy of a context', () =>
    withReplicator(async (s, H) => {
      const source = await createContext(s);
      const hubContext = await copy<NetworkContext>(s, NETWORK_CONTEXTS, H, C);
      assert.deepEqual(hubContext.spec, source.spec);
      assert.deepEqual(hubContext.metadata.labels, expectedLabels('NetworkContext', C));
      assert.equal(hubContext.metadata.ownerReferences, undefined);
      assert.equal(hubContext.metadata.finalizers, undefined);
      assert.deepEqual(hubContext.status, seededStatus(['Ready']));
      await finalized(s, NETWORK_CONTEXTS, C);

      const subnet = await createSubnet(s);
      const hubSubnet = await copy<Subnet>(s, SUBNETS, H, SUBNET);
      assert.deepEqual(hubSubnet.spec, subnet.spec);
      assert.deepEqual(hubSubnet.metadata.labels, expectedLabels('Subnet', SUBNET));
      assert.deepEqual(hubSubnet.status, seededStatus(['Allocated', 'Programmed', 'Ready']));
      await finalized(s, SUBNETS, SUBNET);
    }));

  it('S48 replicating creates the hub namespace with the upstream labels', () =>
    withReplicator(async (s, H) => {
      assert.equal(await s.client('hub', NAMESPACES).get(H), undefined, 'no namespace H on the hub yet');
      await createContext(s);
      await copy(s, NETWORK_CONTEXTS, H, C);
      const namespace = (await s.client('hub', NAMESPACES).get(H))!;
      assert.equal(namespace.metadata.labels?.[UPSTREAM_CLUSTER_NAME_LABEL], 'cluster-project-alpha');
      assert.equal(namespace.metadata.labels?.[UPSTREAM_NAMESPACE_LABEL], 'default');
    }));

  it('S49 drift and loss are repaired', () =>
    withReplicator(async (s, H) => {
      await createContext(s);
      await copy(s, NETWORK_CONTEXTS, H, C);
      const sources = s.client<NetworkContext>(PLANE, NETWORK_CONTEXTS);
      const copies = s.client<NetworkContext>('hub', NETWORK_CONTEXTS);

      await sources.patchMerge(C, 'default', { spec: { mtu: 8000 } });
      await copy<NetworkContext>(
        s,
        NETWORK_CONTEXTS,
        H,
        C,
        (c) => c.spec.mtu === 8000,
        'the copy to follow the MTU',
      );

      await copies.patchMerge(C, H, { spec: { mtu: 1300, ipFamilies: ['IPv4'] } });
      await copy<NetworkContext>(
        s,
        NETWORK_CONTEXTS,
        H,
        C,
        (c) => c.spec.mtu === 8000 && JSON.stringify(c.spec.ipFamilies) === '["IPv6"]',
        'the edited copy to be restored',
      );

      const lost = (await copies.get(C, H))!;
      await copies.delete(C, H);
      await copy<NetworkContext>(
        s,
        NETWORK_CONTEXTS,
        H,
        C,
        (c) => c.metadata.uid !== lost.metadata.uid,
        'the copy to be recreated',
      );

      await sources.patchMerge(C, 'default', { metadata: { labels: { [NETWORK_LABEL]: null } } });
      await copy<NetworkContext>(
        s,
        NETWORK_CONTEXTS,
        H,
        C,
        (c) => c.metadata.labels?.[NETWORK_LABEL] === undefined,
        'the copy to lose the network label',
      );
    }));

  it('S50 labels and annotations the replicator does not own survive a copy update', () =>
    withReplicator(async (s, H) => {
      await createContext(s);
      await copy(s, NETWORK_CONTEXTS, H, C);
      const copies = s.client<NetworkContext>('hub', NETWORK_CONTEXTS);
      await copies.patchMerge(C, H, {
        metadata: {
          labels: { [CPP_PERMANENT_ID_LABEL]: 'the-id' },
          annotations: { [CPP_NAME_ANNOTATION]: 'location-us-central-1' },
        },
      });
      await s
        .client<NetworkContext>(PLANE, NETWORK_CONTEXTS)
        .patchMerge(C, 'default', { spec: { mtu: 1500 } });
      const updated = await copy<NetworkContext>(
        s,
        NETWORK_CONTEXTS,
        H,
        C,
        (c) => c.spec.mtu === 1500,
        'the copy to update',
      );
      assert.equal(updated.metadata.labels?.[CPP_PERMANENT_ID_LABEL], 'the-id');
      assert.equal(updated.metadata.annotations?.[CPP_NAME_ANNOTATION], 'location-us-central-1');
    }));

  it('S51 deleting the source removes the copy, then the finalizer; status never travels', () =>
    withReplicator(async (s, H) => {
      await createContext(s);
      await copy(s, NETWORK_CONTEXTS, H, C);
      const sources = s.client<NetworkContext>(PLANE, NETWORK_CONTEXTS);
      const copies = s.client<NetworkContext>('hub', NETWORK_CONTEXTS);

      await writeCondition(sources, C, 'default', 'Ready', 'True', 'Ready');
      await writeCondition(copies, C, H, 'Ready', 'False', 'WrittenOnTheHub');
      await sources.patchMerge(C, 'default', { spec: { mtu: 1500 } });
      const hubCopy = await copy<NetworkContext>(
        s,
        NETWORK_CONTEXTS,
        H,
        C,
        (c) => c.spec.mtu === 1500,
        'the copy to update',
      );
      assert.equal(hubCopy.status?.conditions?.find((c) => c.type === 'Ready')?.reason, 'WrittenOnTheHub');
      const source = (await sources.get(C, 'default'))!;
      assert.equal(
        source.status?.conditions?.find((c) => c.type === 'Ready')?.reason,
        'Ready',
        'hub status never reaches the source',
      );

      await sources.delete(C, 'default');
      await until(
        async () => (await copies.get(C, H)) === undefined && (await sources.get(C, 'default')) === undefined,
        WITHIN,
        'the copy and the source to be gone',
      );
    }));

  it('S51 a source Ready=True leaves a new copy at the seed', () =>
    withReplicator(async (s, H) => {
      await createContext(s);
      await writeCondition(s.client(PLANE, NETWORK_CONTEXTS), C, 'default', 'Ready', 'True', 'Ready');
      await copy(s, NETWORK_CONTEXTS, H, C);
      const copies = s.client<NetworkContext>('hub', NETWORK_CONTEXTS);
      await copies.delete(C, H);
      const restored = await copy<NetworkContext>(s, NETWORK_CONTEXTS, H, C);
      assert.deepEqual(restored.status, seededStatus(['Ready']));
    }));
});

/**
 * Writes what the networkcontext controller decides, in one status write as it does: Ready,
 * and the Subnet it names if any.
 */
async function decide(s: Scenario, ready: 'True' | 'False', subnet?: string): Promise<void> {
  await writeCondition(
    s.client<NetworkContext>(PLANE, NETWORK_CONTEXTS),
    C,
    'default',
    'Ready',
    ready,
    ready === 'True' ? 'Ready' : 'NoOfferingPool',
    subnet ? { ipam: { ipv6SubnetRef: { name: subnet } } } : {},
  );
}

describe('replicator beside the networkcontext controller', () => {
  it('S138 an IPv6 context is copied once it is decided and its Subnet is on the hub, after the Subnet', () =>
    withReplicator(async (s, H) => {
      await createContext(s);
      await finalized(s, NETWORK_CONTEXTS, C);
      await decide(s, 'True', SUBNET);
      await createSubnet(s);
      await finalized(s, SUBNETS, SUBNET);
      const hubContext = await copy<NetworkContext>(s, NETWORK_CONTEXTS, H, C);
      const hubSubnet = (await s.client<Subnet>('hub', SUBNETS).get(SUBNET, H))!;
      // Nothing but the replicator writes either copy here, so their resourceVersions are the
      // hub's revisions of their creates. A copy made on the context's first pass, before the
      // Subnet existed, would be the older.
      assert.ok(
        Number(hubContext.metadata.resourceVersion) > Number(hubSubnet.metadata.resourceVersion),
        `the context's copy (revision ${hubContext.metadata.resourceVersion}) follows its Subnet's (revision ${hubSubnet.metadata.resourceVersion})`,
      );
      assert.deepEqual(hubContext.status, seededStatus(['Ready']), 'status still never travels');
    }, managerReplicatorController));

  it('S139 an undecided IPv6 context waits; a refused one and an IPv4-only one go at once', () =>
    withReplicator(async (s, H) => {
      const copies = s.client<NetworkContext>('hub', NETWORK_CONTEXTS);
      await createContext(s);
      await createContext(s, 'v4-us-central-1', ['IPv4']);
      await copy(s, NETWORK_CONTEXTS, H, 'v4-us-central-1');
      await finalized(s, NETWORK_CONTEXTS, C);
      assert.equal(
        await copies.get(C, H),
        undefined,
        'no copy while the networkcontext controller has not decided',
      );
      await decide(s, 'False');
      const hubContext = await copy<NetworkContext>(s, NETWORK_CONTEXTS, H, C);
      assert.equal(
        await s.client('hub', SUBNETS).get(SUBNET, H),
        undefined,
        'a refused context names no Subnet',
      );
      assert.equal(hubContext.metadata.labels?.[UPSTREAM_KIND_LABEL], 'NetworkContext');
    }, managerReplicatorController));
});

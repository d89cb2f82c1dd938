/**
 * Propagation scenarios, policy choice (propagation.md §9, scenarios 1–17, 46, 47): which policy
 * claims a template, whether the claim sticks, and what a policy edit or deletion changes — run
 * against a hub and three member planes, with the engine in embedded mode on a fake clock.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { NetworkContext } from '../../src/apis/networking/v1alpha/network-context.ts';
import type { KubeObject } from '../../src/client/types.ts';
import {
  conditionOf,
  contextTemplate,
  converge,
  copyOn,
  CPPS,
  cppClaim,
  DFW_1,
  DFW_2,
  EVENTS,
  locationPolicy,
  NAMESPACES,
  NC_API_VERSION,
  NCS,
  NS_A,
  ORD_1,
  placedOn,
  PPS,
  RB_NAME,
  rbOf,
  RBS,
  startPropagationHarness,
  TEMPLATE,
  waitCopy,
  waitPlaced,
  workIn,
  WORK_NAME,
  type Policy,
  type PropagationHarness,
} from '../support/propagation-harness.ts';

const CPP_ID = 'clusterpropagationpolicy.karmada.io/permanent-id';
const PP_ID = 'propagationpolicy.karmada.io/permanent-id';
const PP_NAMESPACE = 'propagationpolicy.karmada.io/namespace';
const PP_NAME = 'propagationpolicy.karmada.io/name';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const LOCATION = 'networking.datumapis.com/location';
const CLUSTER_LOCATION = 'topology.datum.net/location';

let h: PropagationHarness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

async function harness(engine = true): Promise<PropagationHarness> {
  h = await startPropagationHarness({ engine });
  return h;
}

/** A CPP `name` selecting NCs by `selector`, placed by `affinity`. */
function cpp(
  name: string,
  selector: Record<string, unknown>,
  affinity: Record<string, unknown> | undefined,
  extra: Partial<Policy['spec']> = {},
): Policy {
  return {
    metadata: { name },
    spec: {
      resourceSelectors: [{ apiVersion: NC_API_VERSION, kind: 'NetworkContext', ...selector }],
      ...(affinity ? { placement: { clusterAffinity: affinity } } : {}),
      ...extra,
    },
  };
}

const byLabel = (location = 'dfw') => ({ labelSelector: { matchLabels: { [LOCATION]: location } } });
const onCluster = (...names: string[]) => ({ clusterNames: names });

async function policyId(h: PropagationHarness, name: string, namespace?: string): Promise<string> {
  const client = h.hub<Policy>(namespace ? PPS : CPPS);
  const label = namespace ? PP_ID : CPP_ID;
  return h.eventually(
    async () => (await client.get(name, namespace))?.metadata.labels?.[label],
    `${name}'s permanent-id`,
  );
}

async function template(h: PropagationHarness, name = TEMPLATE, namespace = NS_A): Promise<NetworkContext> {
  return (await h.hub<NetworkContext>(NCS).get(name, namespace))!;
}

function claimKeys(object: KubeObject): string[] {
  return [
    ...Object.keys(object.metadata.labels ?? {}),
    ...Object.keys(object.metadata.annotations ?? {}),
  ].filter((key) => key.includes('propagationpolicy.karmada.io/'));
}

async function waitClaimedBy(
  h: PropagationHarness,
  policy: string,
  name = TEMPLATE,
): Promise<NetworkContext> {
  return h.eventually(async () => {
    const held = await template(h, name);
    return cppClaim(held)[1] === policy ? held : undefined;
  }, `${name} claimed by ${policy}`);
}

async function noCopies(h: PropagationHarness, ...clusters: string[]): Promise<void> {
  for (const cluster of clusters)
    assert.equal(await copyOn(h, cluster), undefined, `${cluster} holds no copy`);
}

describe('propagation: choosing a policy', () => {
  it('P1 first propagation claims the template, binds it to the dfw cells and applies it there', async () => {
    const h = await harness();
    await h.hub<Policy>(CPPS).create(locationPolicy('dfw'));
    await h.hub<NetworkContext>(NCS).create(contextTemplate());

    const rb = await waitPlaced(h, [DFW_1, DFW_2]);
    const id = await policyId(h, 'location-dfw');
    assert.deepEqual(cppClaim(await template(h)), [id, 'location-dfw']);
    assert.equal(conditionOf(rb, 'Scheduled')?.status, 'True');
    assert.equal(conditionOf(rb, 'Scheduled')?.reason, 'Success');
    assert.equal(conditionOf(rb, 'FullyApplied')?.reason, 'FullyAppliedSuccess');
    for (const cluster of [DFW_1, DFW_2]) {
      const work = await h.eventually(async () => {
        const held = await workIn(h, cluster);
        return conditionOf(held, 'Applied')?.status === 'True' ? held : undefined;
      }, `Work ${WORK_NAME} Applied in ${cluster}`);
      assert.equal(conditionOf(work, 'Applied')?.reason, 'AppliedSuccessful');
      const copy = await waitCopy(h, cluster, (held) => held !== undefined, 'the copy');
      assert.equal(copy?.metadata.labels?.['karmada.io/managed'], 'true');
    }
    assert.equal(await workIn(h, ORD_1), undefined);
    await noCopies(h, ORD_1);
  });

  it('P2 policies created without permanent ids get them, with finalizers, and keep them across edits', async () => {
    const h = await harness();
    await h.hub<Policy>(CPPS).create(cpp('some-cpp', byLabel(), undefined));
    await h
      .hub<Policy>(PPS)
      .create({ ...cpp('some-pp', byLabel(), undefined), metadata: { name: 'some-pp', namespace: NS_A } });
    const cppId = await policyId(h, 'some-cpp');
    const ppId = await policyId(h, 'some-pp', NS_A);
    assert.match(cppId, UUID);
    assert.match(ppId, UUID);
    const cppHeld = (await h.hub<Policy>(CPPS).get('some-cpp'))!;
    const ppHeld = (await h.hub<Policy>(PPS).get('some-pp', NS_A))!;
    assert.deepEqual(cppHeld.metadata.finalizers, ['karmada.io/cluster-propagation-policy-controller']);
    assert.deepEqual(ppHeld.metadata.finalizers, ['karmada.io/propagation-policy-controller']);

    await h.hub<Policy>(CPPS).patchMerge('some-cpp', undefined, { spec: { priority: 7 } });
    await h.hub<Policy>(PPS).patchMerge('some-pp', NS_A, { spec: { priority: 7 } });
    await h.idle();
    assert.equal((await h.hub<Policy>(CPPS).get('some-cpp'))!.metadata.labels?.[CPP_ID], cppId);
    assert.equal((await h.hub<Policy>(PPS).get('some-pp', NS_A))!.metadata.labels?.[PP_ID], ppId);
  });

  it('P3 a selector naming another version of the kind matches nothing', async () => {
    const h = await harness();
    const policy = cpp('other-version', byLabel(), undefined);
    policy.spec.resourceSelectors[0].apiVersion = 'networking.datumapis.com/v1';
    await h.hub<Policy>(CPPS).create(policy);
    await policyId(h, 'other-version');
    await h.hub<NetworkContext>(NCS).create(contextTemplate());
    await h.idle();
    assert.deepEqual(claimKeys(await template(h)), []);
    assert.equal(await rbOf(h), undefined);
    await noCopies(h, DFW_1, DFW_2, ORD_1);
    const events = (await h.hub(EVENTS).list({ namespace: 'default' })).items;
    assert.ok(
      events.some(
        (event) =>
          event.reason === 'KindNotServed' && (event.regarding as { name: string }).name === 'other-version',
      ),
      'a Warning Event names the kind the hub does not serve',
    );
  });

  it('P4 a matching PP beats every CPP, whatever the priorities', async () => {
    const h = await harness();
    await h.hub<Policy>(CPPS).create(cpp('all-nc', {}, undefined, { priority: 100 }));
    await h.hub<Policy>(PPS).create({
      ...cpp('pin', { name: TEMPLATE }, onCluster(ORD_1), { priority: 0 }),
      metadata: { name: 'pin', namespace: NS_A },
    });
    const ppId = await policyId(h, 'pin', NS_A);
    await policyId(h, 'all-nc');
    await h.hub<NetworkContext>(NCS).create(contextTemplate());

    await waitPlaced(h, [ORD_1]);
    await waitCopy(h, ORD_1, (copy) => copy !== undefined, 'the copy');
    const held = await template(h);
    assert.equal(held.metadata.labels?.[PP_ID], ppId);
    assert.equal(held.metadata.annotations?.[PP_NAMESPACE], NS_A);
    assert.equal(held.metadata.annotations?.[PP_NAME], 'pin');
    assert.deepEqual(cppClaim(held), [undefined, undefined]);
    await h.idle();
    await noCopies(h, DFW_1, DFW_2);
  });

  it('P5 the higher explicit priority wins and its placement is followed', async () => {
    const h = await harness();
    await h.hub<Policy>(CPPS).create(cpp('a-low', byLabel(), onCluster(DFW_1), { priority: 1 }));
    await h.hub<Policy>(CPPS).create(cpp('b-high', byLabel(), onCluster(ORD_1), { priority: 5 }));
    await policyId(h, 'a-low');
    await policyId(h, 'b-high');
    await h.hub<NetworkContext>(NCS).create(contextTemplate());
    await waitClaimedBy(h, 'b-high');
    await waitPlaced(h, [ORD_1]);
    await waitCopy(h, ORD_1, (copy) => copy !== undefined, 'the copy');
    await h.idle();
    await noCopies(h, DFW_1, DFW_2);
  });

  it('P6 at equal priority, a name selector beats a label selector, which beats kind only', async () => {
    const h = await harness();
    await h.hub<Policy>(CPPS).create(cpp('aa-all', {}, undefined));
    await h.hub<Policy>(CPPS).create(cpp('bb-label', byLabel(), undefined));
    await h.hub<Policy>(CPPS).create(cpp('cc-name', { name: TEMPLATE }, undefined));
    for (const name of ['aa-all', 'bb-label', 'cc-name']) await policyId(h, name);
    await h.hub<NetworkContext>(NCS).create(contextTemplate());
    // `other-dfw` is matched by aa-all and bb-label only (cc-name names default-dfw).
    await h.hub<NetworkContext>(NCS).create(contextTemplate({ name: 'other-dfw' }));
    await waitClaimedBy(h, 'cc-name');
    await waitClaimedBy(h, 'bb-label', 'other-dfw');
  });

  it('P7 on a full tie, the policy whose name sorts first wins', async () => {
    const h = await harness();
    await h.hub<Policy>(CPPS).create(cpp('nso-resources', byLabel(), undefined));
    await h.hub<Policy>(CPPS).create(locationPolicy('dfw'));
    await policyId(h, 'nso-resources');
    await policyId(h, 'location-dfw');
    await h.hub<NetworkContext>(NCS).create(contextTemplate());
    await waitClaimedBy(h, 'location-dfw');
  });

  it('P8 a claim sticks against a newer policy of higher priority', async () => {
    const h = await harness();
    const { rb } = await converge(h);
    const claim = cppClaim(await template(h));
    await h.hub<Policy>(CPPS).create(cpp('urgent', { name: TEMPLATE }, onCluster(ORD_1), { priority: 10 }));
    await policyId(h, 'urgent');
    await h.idle();
    assert.deepEqual(cppClaim(await template(h)), claim);
    assert.deepEqual(placedOn(await rbOf(h)), placedOn(rb));
    await noCopies(h, ORD_1);
  });

  it('P9 a claim by a CPP sticks against a new PP of the same namespace', async () => {
    const h = await harness();
    const { rb } = await converge(h);
    const claim = cppClaim(await template(h));
    await h.hub<Policy>(PPS).create({
      ...cpp('local', { name: TEMPLATE }, onCluster(ORD_1)),
      metadata: { name: 'local', namespace: NS_A },
    });
    await policyId(h, 'local', NS_A);
    await h.idle();
    const held = await template(h);
    assert.deepEqual(cppClaim(held), claim);
    assert.equal(held.metadata.labels?.[PP_ID], undefined);
    assert.deepEqual(placedOn(await rbOf(h)), placedOn(rb));
    await noCopies(h, ORD_1);
  });

  it('P10 an unmatched template is claimed once a matching policy is created', async () => {
    const h = await harness();
    await h.hub<NetworkContext>(NCS).create(contextTemplate());
    await h.idle();
    assert.deepEqual(claimKeys(await template(h)), []);
    assert.equal(await rbOf(h), undefined);
    await noCopies(h, DFW_1, DFW_2, ORD_1);

    await h.hub<Policy>(CPPS).create(locationPolicy('dfw'));
    await waitClaimedBy(h, 'location-dfw');
    await waitPlaced(h, [DFW_1, DFW_2]);
    await waitCopy(h, DFW_1, (copy) => copy !== undefined, 'the copy');
    await waitCopy(h, DFW_2, (copy) => copy !== undefined, 'the copy');
    await noCopies(h, ORD_1);
  });

  it('P11 a metadata-only policy edit writes nothing on the binding or the Works', async () => {
    const h = await harness();
    await converge(h);
    await h.idle();
    const before = [await rbOf(h), await workIn(h, DFW_1), await workIn(h, DFW_2)].map(
      (o) => o?.metadata.resourceVersion,
    );
    await h
      .hub<Policy>(CPPS)
      .patchMerge('location-dfw', undefined, { metadata: { labels: { team: 'net' } } });
    await h.idle();
    const after = [await rbOf(h), await workIn(h, DFW_1), await workIn(h, DFW_2)].map(
      (o) => o?.metadata.resourceVersion,
    );
    assert.deepEqual(after, before);
  });

  it('P12 a narrowed selector lets the template go, and a new policy re-claims the same binding', async () => {
    const h = await harness();
    const { rb } = await converge(h);
    await h.idle();
    const copies = [(await copyOn(h, DFW_1))!, (await copyOn(h, DFW_2))!];
    const policy = (await h.hub<Policy>(CPPS).get('location-dfw'))!;
    await h.hub<Policy>(CPPS).update({
      ...policy,
      spec: {
        ...policy.spec,
        resourceSelectors: policy.spec.resourceSelectors.filter(
          (selector) => selector.kind !== 'NetworkContext',
        ),
      },
    });
    await h.eventually(
      async () => (claimKeys(await template(h)).length === 0 ? true : undefined),
      'the claim gone',
    );
    await h.eventually(
      async () => ((await rbOf(h)) && claimKeys((await rbOf(h))!).length === 0 ? true : undefined),
      'the RB claim gone',
    );
    await h.idle();
    const held = (await rbOf(h))!;
    assert.equal(held.metadata.uid, rb.metadata.uid);
    assert.ok(await workIn(h, DFW_1));
    assert.ok(await workIn(h, DFW_2));
    assert.equal((await copyOn(h, DFW_1))?.metadata.resourceVersion, copies[0].metadata.resourceVersion);
    assert.equal((await copyOn(h, DFW_2))?.metadata.resourceVersion, copies[1].metadata.resourceVersion);

    await h.hub<Policy>(CPPS).create(cpp('dfw-contexts', byLabel(), onCluster(DFW_1)));
    const id = await policyId(h, 'dfw-contexts');
    await waitClaimedBy(h, 'dfw-contexts');
    const reclaimed = await waitPlaced(h, [DFW_1]);
    assert.equal(reclaimed.metadata.uid, rb.metadata.uid);
    assert.deepEqual(cppClaim(reclaimed), [id, 'dfw-contexts']);
    await waitCopy(h, DFW_2, (copy) => copy === undefined, 'the copy deleted');
  });

  it('P13 an edited placement drops a cluster, its Work and its copy, and leaves the other copy alone', async () => {
    const h = await harness();
    await converge(h);
    await h.idle();
    const kept = (await copyOn(h, DFW_1))!.metadata.resourceVersion;
    await h.hub<Policy>(CPPS).patchMerge('location-dfw', undefined, {
      spec: {
        placement: {
          clusterAffinity: {
            labelSelector: { matchLabels: { [CLUSTER_LOCATION]: 'dfw' } },
            clusterNames: [DFW_1],
          },
        },
      },
    });
    await waitPlaced(h, [DFW_1]);
    await h.eventually(async () => ((await workIn(h, DFW_2)) ? undefined : true), 'the dfw-2 Work gone');
    await waitCopy(h, DFW_2, (copy) => copy === undefined, 'the copy deleted');
    await h.idle();
    assert.equal((await copyOn(h, DFW_1))?.metadata.resourceVersion, kept);
  });

  it('P14 deleting a policy releases its claims and deletes nothing; a twin re-claims the same binding', async () => {
    const h = await harness();
    const { rb, policy } = await converge(h);
    await h.hub<Policy>(CPPS).delete('location-dfw');
    await h.eventually(
      async () => ((await h.hub<Policy>(CPPS).get('location-dfw')) ? undefined : true),
      'the CPP gone',
    );
    await h.idle();
    assert.deepEqual(claimKeys(await template(h)), []);
    const held = (await rbOf(h))!;
    assert.deepEqual(claimKeys(held), []);
    assert.equal(held.metadata.uid, rb.metadata.uid);
    assert.ok(await workIn(h, DFW_1));
    assert.ok(await workIn(h, DFW_2));
    assert.ok(await copyOn(h, DFW_1));
    assert.ok(await copyOn(h, DFW_2));

    await h.hub<Policy>(CPPS).create({ metadata: { name: 'location-dfw-2' }, spec: policy.spec });
    await waitClaimedBy(h, 'location-dfw-2');
    await h.eventually(
      async () => (cppClaim(await rbOf(h))[1] === 'location-dfw-2' ? true : undefined),
      'the RB re-claimed',
    );
    assert.equal((await rbOf(h))!.metadata.uid, rb.metadata.uid);
  });

  it('P15 templates in reserved namespaces, or labelled claimed-by, are never claimed', async () => {
    const h = await harness();
    await h.hub<Policy>(CPPS).create(locationPolicy('dfw'));
    await h.hub<Policy>(CPPS).create(cpp('every-nc', {}, undefined));
    await policyId(h, 'location-dfw');
    await policyId(h, 'every-nc');
    if (!(await h.hub(NAMESPACES).get('kube-system')))
      await h.hub(NAMESPACES).create({ metadata: { name: 'kube-system' } });
    await h.eventually(
      async () => (await h.hub(NAMESPACES).get('karmada-es-cell-dfw-1')) ?? undefined,
      'the execution space',
    );
    const templates = [
      contextTemplate({ namespace: 'kube-system' }),
      contextTemplate({ namespace: 'karmada-es-cell-dfw-1' }),
      contextTemplate({ labels: { [LOCATION]: 'dfw', 'resourcetemplate.karmada.io/claimed-by': 'other' } }),
    ];
    for (const object of templates) await h.hub<NetworkContext>(NCS).create(object);
    await h.idle();
    for (const object of templates) {
      const held = (await h.hub<NetworkContext>(NCS).get(TEMPLATE, object.metadata.namespace))!;
      assert.deepEqual(claimKeys(held), [], `${object.metadata.namespace} is not claimed`);
      assert.equal(await h.hub(RBS).get(RB_NAME, object.metadata.namespace), undefined);
    }
  });

  it('P16 a PP never claims a template of another namespace', async () => {
    const h = await harness();
    await h.hub<Policy>(PPS).create({ ...cpp('p', {}, undefined), metadata: { name: 'p', namespace: NS_A } });
    await policyId(h, 'p', NS_A);
    await h.hub(NAMESPACES).create({ metadata: { name: 'ns-b' } });
    await h.hub<NetworkContext>(NCS).create(contextTemplate({ namespace: 'ns-b' }));
    await h.idle();
    assert.deepEqual(claimKeys(await template(h, TEMPLATE, 'ns-b')), []);
    assert.equal(await h.hub(RBS).get(RB_NAME, 'ns-b'), undefined);
  });

  it('P17 a relabelled template stays with its policy until that policy is next edited', async () => {
    const h = await harness();
    await converge(h);
    await h.hub<Policy>(CPPS).create(locationPolicy('ord'));
    await policyId(h, 'location-ord');
    await h
      .hub<NetworkContext>(NCS)
      .patchMerge(TEMPLATE, NS_A, { metadata: { labels: { [LOCATION]: 'ord' } } });
    await h.idle();
    await h.hub<NetworkContext>(NCS).patchMerge(TEMPLATE, NS_A, { spec: { mtu: 1500 } });
    await h.idle();
    assert.equal(cppClaim(await template(h))[1], 'location-dfw');
    assert.equal((await copyOn(h, DFW_1))?.spec.mtu, 1400);
    assert.equal((await copyOn(h, DFW_2))?.spec.mtu, 1400);
    await noCopies(h, ORD_1);

    await h.hub<Policy>(CPPS).patchMerge('location-dfw', undefined, { spec: { priority: 1 } });
    await waitClaimedBy(h, 'location-ord');
    await waitPlaced(h, [ORD_1]);
    await waitCopy(h, ORD_1, (copy) => copy?.spec.mtu === 1500, 'the copy with the new spec');
    await waitCopy(h, DFW_1, (copy) => copy === undefined, 'the copy deleted');
    await waitCopy(h, DFW_2, (copy) => copy === undefined, 'the copy deleted');
  });
});

describe('propagation: the location hazard', () => {
  it('P46 a context created before its location policy still lands only on that location', async () => {
    const h = await harness();
    await h.hub<Policy>(CPPS).create(locationPolicy('ord'));
    await policyId(h, 'location-ord');
    await h.hub<NetworkContext>(NCS).create(contextTemplate());
    await h.idle();
    assert.deepEqual(claimKeys(await template(h)), []);

    await h.hub<Policy>(CPPS).create(locationPolicy('dfw'));
    await waitClaimedBy(h, 'location-dfw');
    await waitPlaced(h, [DFW_1, DFW_2]);
    await waitCopy(h, DFW_1, (copy) => copy !== undefined, 'the copy');
    await waitCopy(h, DFW_2, (copy) => copy !== undefined, 'the copy');
    await h.idle();
    await noCopies(h, ORD_1);
    assert.equal(await workIn(h, ORD_1), undefined);
  });

  it('P47 a fleet-wide policy that claims a context first keeps it, on every cell', async () => {
    const h = await harness();
    await h
      .hub<Policy>(CPPS)
      .create(
        cpp(
          'nso-resources',
          { labelSelector: { matchExpressions: [{ key: LOCATION, operator: 'Exists' }] } },
          { labelSelector: { matchLabels: { 'infra.datum.net/gateways': 'enabled' } } },
        ),
      );
    await policyId(h, 'nso-resources');
    await h.hub<NetworkContext>(NCS).create(contextTemplate());
    await waitClaimedBy(h, 'nso-resources');
    await waitPlaced(h, [DFW_1, DFW_2, ORD_1]);

    await h.hub<Policy>(CPPS).create(locationPolicy('dfw'));
    await policyId(h, 'location-dfw');
    await h.idle();
    assert.equal(cppClaim(await template(h))[1], 'nso-resources');
    for (const cluster of [DFW_1, DFW_2, ORD_1])
      assert.ok(await copyOn(h, cluster), `${cluster} holds a copy`);
  });
});

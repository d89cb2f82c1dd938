/**
 * Propagation scenarios, bindings and Works (propagation.md §9, scenarios 28 and 29): their
 * names, and the metadata the engine keeps on the hub — against a hub and member planes, with the
 * engine in embedded mode on a fake clock.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { ServingLocation } from '../../src/apis/networking/v1alpha/serving-location.ts';
import { workName } from '../../src/apis/work/v1alpha1/work.ts';
import { bindingName } from '../../src/apis/work/v1alpha2/binding-spec.ts';
import {
  converge,
  copyOn,
  CPPS,
  CRBS,
  cppClaim,
  DFW_1,
  DFW_2,
  locationPolicy,
  NCS,
  NS_A,
  ORD_1,
  rbOf,
  SLS,
  startPropagationHarness,
  TEMPLATE,
  waitCopy,
  waitPlaced,
  workIn,
  WORKS,
  type Policy,
  type PropagationHarness,
  type Work,
} from '../support/propagation-harness.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let h: PropagationHarness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

describe('propagation: bindings and Works', () => {
  it('P28 Works and bindings are named as Karmada names them', async () => {
    const vectors: [kind: string, name: string, namespace: string | undefined, work: string][] = [
      ['Deployment', 'nginx', 'default', 'nginx-687f7fb96f'],
      ['NetworkContext', 'default-dfw', 'ns-a', 'default-dfw-855f9b568d'],
      ['Subnet', 'default-dfw', 'ns-a', 'default-dfw-b9bc5f98d'],
      ['NetworkContext', 'default-dfw', 'ns-0b6f1d2e-8c1a-4d2b-9b7e-3f5a6c7d8e9f', 'default-dfw-5b5f9687b'],
      ['ServingLocation', 'dfw', undefined, 'dfw-777bfbb654'],
      ['Namespace', 'ns-a', undefined, 'ns-a-75cb9b7478'],
      ['ClusterRole', 'system:controller:foo', undefined, 'system.controller.foo-77f96cf7cf'],
    ];
    for (const [kind, name, namespace, work] of vectors) assert.equal(workName(kind, name, namespace), work);
    assert.equal(bindingName('ClusterRole', 'system:controller:foo'), 'system.controller.foo-clusterrole');

    h = await startPropagationHarness();
    await h.hub<Policy>(CPPS).create(locationPolicy('dfw'));
    await h.hub<ServingLocation>(SLS).create({
      metadata: { name: 'dfw' },
      spec: { topology: { 'topology.datum.net/city-code': 'DFW' } },
    });
    const crb = await h.eventually(async () => {
      const held = await h!.hub(CRBS).get('dfw-servinglocation');
      return cppClaim(held)[1] === 'location-dfw' ? held : undefined;
    }, 'CRB dfw-servinglocation claimed by location-dfw');
    assert.equal(crb.metadata.namespace, undefined);
    for (const cluster of [DFW_1, DFW_2])
      await h.eventually(
        () => h!.hub<Work>(WORKS).get('dfw-777bfbb654', `karmada-es-${cluster}`),
        `Work dfw-777bfbb654 in karmada-es-${cluster}`,
      );
  });

  it('P29 the binding and its Works carry the hub metadata Karmada gives them', async () => {
    h = await startPropagationHarness();
    const { template } = await converge(h);
    const rb = (await rbOf(h))!;
    assert.deepEqual(rb.metadata.ownerReferences, [
      {
        apiVersion: template.apiVersion,
        kind: 'NetworkContext',
        name: template.metadata.name,
        uid: template.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    assert.deepEqual(rb.metadata.finalizers, ['karmada.io/binding-controller']);
    const bindingId = rb.metadata.labels?.['resourcebinding.karmada.io/permanent-id'];
    assert.match(bindingId ?? '', UUID);
    const policyId = (await h.hub<Policy>(CPPS).get('location-dfw'))!.metadata.labels?.[
      'clusterpropagationpolicy.karmada.io/permanent-id'
    ];
    assert.deepEqual(cppClaim(rb), [policyId, 'location-dfw']);
    assert.deepEqual(
      JSON.parse(rb.metadata.annotations?.['policy.karmada.io/applied-placement'] ?? 'null'),
      locationPolicy('dfw').spec.placement,
    );
    assert.equal(rb.spec.conflictResolution, 'Abort');
    assert.equal(rb.spec.preserveResourcesOnDeletion, false);

    const workIds = new Set<string>();
    for (const cluster of [DFW_1, DFW_2]) {
      const work: Work = (await workIn(h, cluster))!;
      assert.equal(work.metadata.labels?.['resourcebinding.karmada.io/permanent-id'], bindingId);
      const workId = work.metadata.labels?.['work.karmada.io/permanent-id'] ?? '';
      assert.match(workId, UUID);
      workIds.add(workId);
      assert.equal(work.metadata.annotations?.['resourcebinding.karmada.io/namespace'], NS_A);
      assert.equal(
        work.metadata.annotations?.['resourcebinding.karmada.io/name'],
        'default-dfw-networkcontext',
      );
      assert.equal(work.metadata.annotations?.['work.karmada.io/conflict-resolution'], 'abort');
      assert.deepEqual(work.metadata.finalizers, ['karmada.io/execution-controller']);
      assert.equal(work.spec?.workload?.manifests?.length, 1);
      assert.equal(work.metadata.ownerReferences, undefined);
    }
    assert.equal(workIds.size, 2, 'each Work has its own permanent-id');
    assert.equal(await workIn(h, ORD_1), undefined);
  });

  it('a cluster joining a binding whose template drifted from its claim gets the recorded content', async () => {
    h = await startPropagationHarness();
    await converge(h);
    await h.hub(NCS).patchMerge(TEMPLATE, NS_A, {
      metadata: { labels: { 'networking.datumapis.com/location': 'ord' } },
      spec: { mtu: 1500 },
    });
    await h.idle();
    await h.addCluster('cell-dfw-3', { 'topology.datum.net/location': 'dfw' });
    await waitPlaced(h, [DFW_1, DFW_2, 'cell-dfw-3']);
    const copy = await waitCopy(h, 'cell-dfw-3', (held) => held !== undefined, 'the copy');
    assert.equal(copy?.spec.mtu, 1400);
    assert.equal((await copyOn(h, DFW_1))?.spec.mtu, 1400);
  });

  it('a restarted engine rewrites no binding and no Work that is already right', async () => {
    h = await startPropagationHarness();
    await converge(h);
    await h.idle();
    const versions = async () =>
      [await rbOf(h!), await workIn(h!, DFW_1), await workIn(h!, DFW_2)].map(
        (o) => o?.metadata.resourceVersion,
      );
    const before = await versions();
    await h.restartEngine();
    await h.idle();
    assert.deepEqual(await versions(), before);
  });
});

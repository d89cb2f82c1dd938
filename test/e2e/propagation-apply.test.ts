/**
 * Applying to members and drift (propagation.md §5, §6; scenarios 30–41 of §9): the embedded
 * engine on a fake clock against a hub plane and three member planes, through the real HTTP API.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { NetworkContext } from '../../src/apis/networking/v1alpha/network-context.ts';
import { workName } from '../../src/apis/work/v1alpha1/work.ts';
import type { KubeObject } from '../../src/client/types.ts';
import {
  CELLS,
  CPPS,
  DFW_1,
  DFW_2,
  NAMESPACES,
  NCS,
  NS_A,
  TEMPLATE,
  WORK_NAME,
  WORKS,
  conditionOf,
  contextTemplate,
  converge,
  copyOn,
  locationPolicy,
  rbOf,
  startPropagationHarness,
  waitCopy,
  waitPlaced,
  workIn,
  type Policy,
  type PropagationHarness,
  type Work,
} from '../support/propagation-harness.ts';

const LOCATION = 'networking.datumapis.com/location';
const CONFLICT = 'work.karmada.io/conflict-resolution';
const CONFIG_MAPS = { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true };

/** An unmanaged `ns-a/<name>` on `cluster` (and its namespace), with a spec the template lacks. */
async function unmanagedOn(
  h: PropagationHarness,
  cluster: string,
  name = TEMPLATE,
  extra: Partial<KubeObject['metadata']> = {},
): Promise<NetworkContext> {
  if (!(await h.member(cluster, NAMESPACES).get(NS_A)))
    await h.member(cluster, NAMESPACES).create({ metadata: { name: NS_A } });
  const object = contextTemplate({ name, mtu: 8000 });
  object.metadata = { ...object.metadata, ...extra };
  return h.member<NetworkContext>(cluster, NCS).create(object);
}

/** Waits for the Work `name` on `cluster` to report Applied as asked. */
function waitApplied(h: PropagationHarness, cluster: string, status: 'True' | 'False', name = WORK_NAME) {
  return h.eventually(async () => {
    const work = await workIn(h, cluster, name);
    const applied = conditionOf(work, 'Applied');
    return applied?.status === status ? applied : undefined;
  }, `Work ${name} in karmada-es-${cluster} Applied=${status}`);
}

describe('propagation: applying to members', () => {
  let h: PropagationHarness;
  beforeEach(async () => {
    h = await startPropagationHarness();
  });
  afterEach(async () => {
    await h.stop();
  });

  it('P30 member copy metadata: exactly the template labels and annotations plus the engine keys', async () => {
    await h.hub<Policy>(CPPS).create(locationPolicy('dfw'));
    const template = contextTemplate({
      labels: { [LOCATION]: 'dfw', app: 'web' },
      annotations: { note: 'hello' },
    });
    const created = await h.hub<NetworkContext>(NCS).create(template);
    // Generation 3: two spec edits.
    for (const mtu of [1401, 1402])
      await h.hub<NetworkContext>(NCS).patchMerge(TEMPLATE, NS_A, { spec: { mtu } });
    const copy = await waitCopy(
      h,
      DFW_1,
      (c) => c?.metadata.annotations?.['resourcetemplate.karmada.io/generation'] === '3',
      'the copy at generation 3',
    );
    assert.deepEqual(Object.keys(copy!.metadata.labels!).sort(), [
      'app',
      'clusterpropagationpolicy.karmada.io/permanent-id',
      'karmada.io/managed',
      LOCATION,
      'resourcebinding.karmada.io/permanent-id',
      'work.karmada.io/permanent-id',
    ]);
    assert.equal(copy!.metadata.labels!['karmada.io/managed'], 'true');
    assert.deepEqual(copy!.metadata.annotations, {
      note: 'hello',
      'clusterpropagationpolicy.karmada.io/name': 'location-dfw',
      'resourcetemplate.karmada.io/generation': '3',
      'resourcebinding.karmada.io/namespace': NS_A,
      'resourcebinding.karmada.io/name': 'default-dfw-networkcontext',
      'resourcetemplate.karmada.io/uid': created.metadata.uid,
      'work.karmada.io/name': WORK_NAME,
      'work.karmada.io/namespace': `karmada-es-${DFW_1}`,
      [CONFLICT]: 'abort',
      'resourcetemplate.karmada.io/managed-labels':
        'app,clusterpropagationpolicy.karmada.io/permanent-id,karmada.io/managed,networking.datumapis.com/location,resourcebinding.karmada.io/permanent-id,work.karmada.io/permanent-id',
      'resourcetemplate.karmada.io/managed-annotations':
        'clusterpropagationpolicy.karmada.io/name,note,resourcebinding.karmada.io/name,resourcebinding.karmada.io/namespace,resourcetemplate.karmada.io/generation,resourcetemplate.karmada.io/managed-annotations,resourcetemplate.karmada.io/managed-labels,resourcetemplate.karmada.io/uid,work.karmada.io/conflict-resolution,work.karmada.io/name,work.karmada.io/namespace',
    });
  });

  it('P31 stripped fields: no ownerReferences, finalizers or hub status reach the copies', async () => {
    const owner = await h.hub(CONFIG_MAPS).create({ metadata: { name: 'owner', namespace: NS_A } });
    await h.hub<Policy>(CPPS).create(locationPolicy('dfw'));
    const template = contextTemplate();
    template.metadata.ownerReferences = [
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid! },
    ];
    template.metadata.finalizers = ['hub.example/x'];
    const created = await h.hub<NetworkContext>(NCS).create(template);
    const hubStatus = {
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Ready',
          message: 'hub',
          lastTransitionTime: '2026-01-01T00:00:00Z',
        },
      ],
    };
    await h
      .hub<NetworkContext>(NCS)
      .patchMerge(TEMPLATE, NS_A, { status: hubStatus }, { subresource: 'status' });
    await waitPlaced(h, [DFW_1, DFW_2]);
    for (const cluster of [DFW_1, DFW_2]) {
      const copy = await waitCopy(h, cluster, (c) => c !== undefined, 'the copy');
      assert.equal(copy!.metadata.ownerReferences, undefined);
      assert.equal(copy!.metadata.finalizers, undefined);
      // A NetworkContext is seeded with a status by its CRD; the hub's status never travels.
      assert.notDeepEqual(copy!.status, hubStatus);
      assert.notEqual(copy!.metadata.uid, created.metadata.uid);
      assert.deepEqual(copy!.spec, created.spec);
    }
  });

  it('P32 a status the member writes is untouched by later applies', async () => {
    await converge(h);
    const memberStatus = {
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Ready',
          message: 'member',
          lastTransitionTime: '2026-01-01T00:00:00Z',
        },
      ],
    };
    await h
      .member<NetworkContext>(DFW_1, NCS)
      .patchMerge(TEMPLATE, NS_A, { status: memberStatus }, { subresource: 'status' });
    await h.hub<NetworkContext>(NCS).patchMerge(TEMPLATE, NS_A, { spec: { mtu: 1300 } });
    const copy = await waitCopy(h, DFW_1, (c) => c?.spec.mtu === 1300, 'the new spec');
    assert.deepEqual(copy!.status, memberStatus);
  });

  it('P33 no-op writes are skipped: a restart reconciling every Work changes no copy', async () => {
    await converge(h);
    await h.idle();
    const before = await Promise.all([DFW_1, DFW_2].map((cluster) => copyOn(h, cluster)));
    await h.restartEngine();
    await h.idle();
    const after = await Promise.all([DFW_1, DFW_2].map((cluster) => copyOn(h, cluster)));
    assert.deepEqual(
      after.map((copy) => copy!.metadata.resourceVersion),
      before.map((copy) => copy!.metadata.resourceVersion),
    );
  });

  it('P34 abort: an unmanaged object is left untouched and the refusal is reported', async () => {
    const unmanaged = await unmanagedOn(h, DFW_1);
    await h.hub<Policy>(CPPS).create(locationPolicy('dfw'));
    await h.hub<NetworkContext>(NCS).create(contextTemplate());
    const applied = await waitApplied(h, DFW_1, 'False');
    assert.equal(applied.reason, 'AppliedFailed');
    assert.match(applied.message, /^Failed to apply all manifests \(0\/1\): /);
    assert.ok(applied.message.includes(`already exists in the cluster ${DFW_1}`), applied.message);
    assert.ok(applied.message.includes('location-dfw'), applied.message);
    const rb = await waitPlaced(h, [DFW_1, DFW_2], 'False');
    assert.equal(conditionOf(rb, 'FullyApplied')?.reason, 'FullyAppliedFailed');
    const item = await h.eventually(async () => {
      const found = (await rbOf(h))?.status?.aggregatedStatus?.find((i) => i.clusterName === DFW_1);
      return found?.appliedMessage ? found : undefined;
    }, 'the aggregated status of cell-dfw-1');
    assert.equal(item.applied, false);
    assert.equal(item.appliedMessage, applied.message);
    await waitCopy(h, DFW_2, (c) => c?.metadata.labels?.['karmada.io/managed'] === 'true', 'the copy');
    const untouched = await copyOn(h, DFW_1);
    assert.equal(untouched!.metadata.resourceVersion, unmanaged.metadata.resourceVersion);

    await h.member(DFW_1, NCS).delete(TEMPLATE, NS_A);
    await waitCopy(
      h,
      DFW_1,
      (c) => c?.metadata.labels?.['karmada.io/managed'] === 'true',
      'the copy created',
    );
    await waitPlaced(h, [DFW_1, DFW_2], 'True');
  });

  it('P35 overwrite adopts an unmanaged object, keeping its member label, finalizer and status', async () => {
    await unmanagedOn(h, DFW_1, TEMPLATE, { labels: { team: 'x' }, finalizers: ['cell.example/hold'] });
    const memberStatus = {
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'Local',
          message: 'member',
          lastTransitionTime: '2026-01-01T00:00:00Z',
        },
      ],
    };
    await h
      .member(DFW_1, NCS)
      .patchMerge(TEMPLATE, NS_A, { status: memberStatus }, { subresource: 'status' });
    await h.hub<Policy>(CPPS).create(locationPolicy('dfw', { conflictResolution: 'Overwrite' }));
    const template = await h.hub<NetworkContext>(NCS).create(contextTemplate());
    const copy = await waitCopy(
      h,
      DFW_1,
      (c) => c?.metadata.labels?.['karmada.io/managed'] === 'true',
      'adoption',
    );
    assert.deepEqual(copy!.spec, template.spec);
    assert.equal(copy!.metadata.labels!.team, 'x');
    assert.deepEqual(copy!.metadata.finalizers, ['cell.example/hold']);
    assert.deepEqual(copy!.status, memberStatus);
  });

  it('P36 the template annotation decides: overwrite adopts, abort refuses, Overwrite is ignored', async () => {
    const [adopted, refused, ignored] = ['p36-adopt', 'p36-abort', 'p36-capital'];
    for (const name of [adopted, refused, ignored]) await unmanagedOn(h, DFW_1, name);
    await h.hub<Policy>(CPPS).create(locationPolicy('dfw'));
    // An Overwrite policy for the second template, preferred by its name selector.
    const overwritePolicy = locationPolicy('dfw', { conflictResolution: 'Overwrite' }, 'p36-overwrite');
    overwritePolicy.spec.resourceSelectors = [
      { apiVersion: 'networking.datumapis.com/v1alpha', kind: 'NetworkContext', name: refused },
    ];
    await h.hub<Policy>(CPPS).create(overwritePolicy);
    await h
      .hub<NetworkContext>(NCS)
      .create(contextTemplate({ name: adopted, annotations: { [CONFLICT]: 'overwrite' } }));
    await h
      .hub<NetworkContext>(NCS)
      .create(contextTemplate({ name: refused, annotations: { [CONFLICT]: 'abort' } }));
    await h
      .hub<NetworkContext>(NCS)
      .create(contextTemplate({ name: ignored, annotations: { [CONFLICT]: 'Overwrite' } }));
    await h.eventually(async () => {
      const copy = await copyOn(h, DFW_1, adopted);
      return copy?.metadata.labels?.['karmada.io/managed'] === 'true' ? copy : undefined;
    }, `${adopted} adopted`);
    for (const name of [refused, ignored]) {
      const applied = await waitApplied(h, DFW_1, 'False', workName('NetworkContext', name, NS_A));
      assert.ok(applied.message.includes(`already exists in the cluster ${DFW_1}`), applied.message);
      const copy = await copyOn(h, DFW_1, name);
      assert.equal(copy!.metadata.labels?.['karmada.io/managed'], undefined, `${name} is not adopted`);
      assert.equal(copy!.spec.mtu, 8000);
    }
  });

  it('P37 namespaces: carried to every member except default, kube-*, and those labelled to skip', async () => {
    await h.hub(NAMESPACES).create({ metadata: { name: 'kube-foo' } });
    await h.hub(NAMESPACES).create({
      metadata: { name: 'ns-skip', labels: { 'namespace.karmada.io/skip-auto-propagation': 'True' } },
    });
    if (!(await h.hub(NAMESPACES).get('default')))
      await h.hub(NAMESPACES).create({ metadata: { name: 'default' } });
    for (const cluster of CELLS) {
      const namespace = await h.eventually(async () => {
        const found = await h.member(cluster, NAMESPACES).get(NS_A);
        return found?.metadata.labels?.['karmada.io/managed'] === 'true' ? found : undefined;
      }, `namespace ns-a on ${cluster}`);
      assert.equal(namespace.metadata.labels!['karmada.io/managed'], 'true');
      assert.ok(await h.hub<Work>(WORKS).get('ns-a-75cb9b7478', `karmada-es-${cluster}`));
    }
    await h.idle();
    for (const cluster of CELLS) {
      assert.equal(await h.member(cluster, NAMESPACES).get('kube-foo'), undefined);
      assert.equal(await h.member(cluster, NAMESPACES).get('ns-skip'), undefined);
      assert.equal(
        await h.hub(WORKS).get(workName('Namespace', 'default'), `karmada-es-${cluster}`),
        undefined,
      );
      assert.equal(
        await h.hub(WORKS).get(workName('Namespace', 'kube-foo'), `karmada-es-${cluster}`),
        undefined,
      );
    }
  });

  it('P38 a label removed on the hub goes; one added on the member stays', async () => {
    await h.hub<Policy>(CPPS).create(locationPolicy('dfw'));
    await h.hub<NetworkContext>(NCS).create(contextTemplate({ labels: { [LOCATION]: 'dfw', app: 'web' } }));
    await waitCopy(h, DFW_1, (c) => c?.metadata.labels?.app === 'web', 'the copy');
    await h.member(DFW_1, NCS).patchMerge(TEMPLATE, NS_A, { metadata: { labels: { local: '1' } } });
    await h.hub(NCS).patchJson(TEMPLATE, NS_A, [{ op: 'remove', path: '/metadata/labels/app' }]);
    const copy = await waitCopy(
      h,
      DFW_1,
      (c) => c !== undefined && c.metadata.labels?.app === undefined,
      'app gone',
    );
    assert.equal(copy!.metadata.labels!.local, '1');
    const listed = copy!.metadata.annotations!['resourcetemplate.karmada.io/managed-labels'].split(',');
    assert.ok(!listed.includes('app'));
    assert.ok(!listed.includes('local'));
  });
});

describe('propagation: drift', () => {
  let h: PropagationHarness;
  beforeEach(async () => {
    h = await startPropagationHarness();
  });
  afterEach(async () => {
    await h.stop();
  });

  it('P39 member edits: the spec is reverted; member annotations and finalizers stay', async () => {
    const { template } = await converge(h);
    const memberCopies = h.member<NetworkContext>(DFW_1, NCS);
    await memberCopies.patchMerge(TEMPLATE, NS_A, {
      metadata: { annotations: { seen: 'yes' }, finalizers: ['cell.example/hold'] },
      spec: { mtu: 8000 },
    });
    let copy = await waitCopy(h, DFW_1, (c) => c?.spec.mtu === template.spec.mtu, 'the spec reverted');
    assert.equal(copy!.metadata.annotations!.seen, 'yes');
    assert.deepEqual(copy!.metadata.finalizers, ['cell.example/hold']);
    await h.hub(NCS).patchMerge(TEMPLATE, NS_A, { spec: { mtu: 1350 } });
    copy = await waitCopy(h, DFW_1, (c) => c?.spec.mtu === 1350, 'the new spec');
    assert.equal(copy!.metadata.annotations!.seen, 'yes');
    assert.deepEqual(copy!.metadata.finalizers, ['cell.example/hold']);
  });

  it('P40 a copy deleted on the member is created again with the same content', async () => {
    await converge(h);
    await h.idle();
    const before = (await copyOn(h, DFW_1))!;
    await h.member(DFW_1, NCS).delete(TEMPLATE, NS_A);
    const again = await waitCopy(
      h,
      DFW_1,
      (c) => c !== undefined && c.metadata.uid !== before.metadata.uid,
      'recreated',
    );
    const content = (copy: NetworkContext) => {
      const metadata: Record<string, unknown> = { ...copy.metadata };
      for (const field of ['uid', 'resourceVersion', 'creationTimestamp', 'managedFields'])
        delete metadata[field];
      return { ...copy, metadata };
    };
    assert.deepEqual(content(again!), content(before));
  });

  it('P41 a managed label removed on the member is restored under overwrite', async () => {
    await converge(h, locationPolicy('dfw', { conflictResolution: 'Overwrite' }));
    await h
      .member(DFW_1, NCS)
      .patchJson(TEMPLATE, NS_A, [{ op: 'remove', path: '/metadata/labels/karmada.io~1managed' }]);
    await waitCopy(
      h,
      DFW_1,
      (c) => c?.metadata.labels?.['karmada.io/managed'] === 'true',
      'the label restored',
    );
  });
});

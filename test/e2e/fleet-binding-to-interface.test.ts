/**
 * End to end through `netpresence up` (scenarios.md §13, S104–S107): a binding on the hub and a
 * claim on a cell become a context, a Subnet, their hub and cell copies and an interface with an
 * address; and both ways of tearing it down. Every fleet runs fixture F as a child process;
 * "within 2 seconds" is a real-time bound measured from the When step.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { seededStatus } from '../../src/apis/common/condition.ts';
import { CLUSTER_LOCATION_LABEL } from '../../src/apis/common/labels.ts';
import {
  NetworkContextConditionType,
  NETWORKCONTEXT_IN_USE_FINALIZER as IN_USE,
} from '../../src/apis/networking/v1alpha/network-context.ts';
import {
  allWithin,
  ALPHA,
  C,
  conditionOf,
  get,
  isTrue,
  KINDS,
  POLICY,
  s104Outcome,
  s106Outcome,
  scenario104,
  startFixtureF,
  SUBNET,
  WITHIN,
  type FleetFixture,
} from '../support/fleet.ts';

describe('end to end on the embedded fleet', () => {
  let f: FleetFixture | undefined;
  afterEach(async () => {
    await f?.dispose();
    f = undefined;
  });

  it('S104 from binding to interface', async () => {
    f = await startFixtureF();
    await f.createBinding('web');
    await f.createClaim('cell-a', 'web-0-eth0');
    await allWithin(WITHIN, s104Outcome(f));
  });

  it('S105 copies carry spec and labels only', async () => {
    f = await startFixtureF({ cells: [{ name: 'cell-c', location: 'eu-west-1' }] });
    await scenario104(f);
    const fixture = f;
    // The cell's hold controller adds the finalizer once the interface exists (controllers.md
    // §12), which can land after S104's last Then: it is awaited, not read at once.
    await allWithin(WITHIN, {
      [`the cell copy of C carries ${IN_USE}`]: async () =>
        (await get(fixture, 'cell-a', 'networkContexts', C, fixture.H))?.metadata.finalizers?.includes(
          IN_USE,
        ) === true,
    });
    const project = await get(f, ALPHA, 'networkContexts', C, 'default');
    const copy = await get(f, 'cell-a', 'networkContexts', C, f.H);
    const policy = await get(f, 'hub', 'clusterPropagationPolicies', POLICY);
    assert.deepEqual(copy.spec, project.spec);
    const labels = copy.metadata.labels;
    assert.equal(labels['networking.datumapis.com/network'], 'vpc');
    assert.equal(labels['networking.datumapis.com/location'], 'us-central-1');
    for (const key of ['cluster-name', 'namespace', 'group', 'kind', 'name'])
      assert.ok(labels[`meta.datumapis.com/upstream-${key}`], `label meta.datumapis.com/upstream-${key}`);
    assert.equal(labels['karmada.io/managed'], 'true');
    assert.equal(
      labels['clusterpropagationpolicy.karmada.io/permanent-id'],
      policy.metadata.labels['clusterpropagationpolicy.karmada.io/permanent-id'],
    );
    assert.equal(copy.metadata.annotations['clusterpropagationpolicy.karmada.io/name'], POLICY);
    assert.equal(copy.metadata.ownerReferences, undefined);
    assert.deepEqual(copy.metadata.finalizers, [IN_USE]);
    assert.deepEqual(copy.status, seededStatus([NetworkContextConditionType.Ready]), 'the seeded status');
    const cellC = await get(f, 'hub', 'clusters', 'cell-c');
    assert.ok(isTrue(cellC, 'Ready'));
    assert.equal(cellC.metadata.labels[CLUSTER_LOCATION_LABEL], 'eu-west-1');
    assert.equal(await get(f, 'cell-c', 'networkContexts', C, f.H), undefined);
    assert.equal(await get(f, 'cell-c', 'subnets', SUBNET, f.H), undefined);
  });

  it('S106 deleting the claim and then the binding removes the interface, the context, its Subnet and copies, and keeps the network Ready', async () => {
    f = await startFixtureF();
    await scenario104(f);
    await f.client('cell-a', KINDS.claims).delete('web-0-eth0', f.H);
    await f.client('hub', KINDS.networkBindings).delete('web', f.H);
    await allWithin(WITHIN, s106Outcome(f));
  });

  it('S107 teardown while interfaces remain', async () => {
    f = await startFixtureF();
    await scenario104(f);
    const fixture = f;
    await f.client('hub', KINDS.networkBindings).delete('web', f.H);
    await allWithin(WITHIN, {
      'the hub copy of C is gone': async () =>
        (await get(fixture, 'hub', 'networkContexts', C, fixture.H)) === undefined,
      'the cell copy is terminating but present': async () =>
        (await get(fixture, 'cell-a', 'networkContexts', C, fixture.H))?.metadata.deletionTimestamp !==
        undefined,
      'the project-plane C is terminating with IPAMAllocated=False RangeOccupied': async () => {
        const context = await get(fixture, ALPHA, 'networkContexts', C, 'default');
        const allocated = conditionOf(context, 'IPAMAllocated');
        return (
          context?.metadata.deletionTimestamp !== undefined &&
          allocated?.status === 'False' &&
          allocated.reason === 'RangeOccupied'
        );
      },
      'the claim is still Bound': async () =>
        isTrue(await get(fixture, 'cell-a', 'claims', 'web-0-eth0', fixture.H), 'Bound'),
    });
    await f.client('cell-a', KINDS.claims).delete('web-0-eth0', f.H);
    await allWithin(WITHIN, s106Outcome(f));
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { IPClaim } from '../../apis/ipam/v1alpha1/ip-claim.ts';
import { IpamFailureReason } from '../../apis/networking/v1alpha/ipam-failures.ts';
import { applyJsonPatch } from '../../apiserver/patch/json-patch.ts';
import type { KubeObject, ResourceClient } from '../../client/types.ts';
import { statusError } from '../../../test/support/fake-resource-client.ts';
import { BACKSTOP_MS } from '../../runtime/backstop.ts';
import type { DesiredCondition } from '../../runtime/conditions.ts';
import { Store } from '../../runtime/store.ts';
import { holdRange, releaseRange, type RangeHold } from './range-hold.ts';

const FINALIZER = 'example.com/range-release';

/** One object kind and the IPClaims of one project, in memory; IPAM answers as `ipam` says. */
function world(ipam: { allocate?: string; refuseCreate?: Error; refuseDelete?: Error } = {}) {
  const writes: string[] = [];
  const objects = new Map<string, KubeObject>();
  const claims = new Store<IPClaim>();
  const objectClient = {
    patchJson: async (name: string, namespace: string | undefined, patch: unknown) => {
      const current = objects.get(name)!;
      const patched = applyJsonPatch(current, patch) as KubeObject;
      objects.set(name, patched);
      writes.push(`finalizers ${JSON.stringify(patched.metadata.finalizers ?? [])}`);
      return patched;
    },
  } as unknown as ResourceClient<KubeObject>;
  const claimClient = {
    create: async (claim: IPClaim) => {
      writes.push(`create claim ${claim.metadata.name}`);
      if (ipam.refuseCreate) throw ipam.refuseCreate;
      const held = { ...claim, status: { allocatedCIDR: ipam.allocate ?? '', poolRef: { name: 'pool-a' } } };
      return held as IPClaim;
    },
    get: async () => undefined,
    delete: async (name: string) => {
      writes.push(`delete claim ${name}`);
      if (ipam.refuseDelete) throw ipam.refuseDelete;
      return true;
    },
  } as unknown as ResourceClient<IPClaim>;
  const reports: Omit<DesiredCondition, 'type'>[] = [];
  const range: RangeHold<KubeObject> = {
    client: objectClient,
    ipam: { project: 'alpha', claims, client: claimClient },
    finalizer: FINALIZER,
    className: 'example-class',
    claimName: (object) => `thing-${object.metadata.uid}`,
    heldRef: () => undefined,
    scope: () => ({ network: { apiGroup: 'networking.datumapis.com', kind: 'Network', name: 'vpc' } }),
    messages: { subject: 'this thing', rangeOccupied: (detail) => `occupied: ${detail}` },
    reportAllocated: async (_object, condition) => void reports.push(condition),
  };
  const put = (object: KubeObject) => (objects.set(object.metadata.name!, object), object);
  return { writes, objects, reports, range, put };
}

const thing = (finalizers?: string[]): KubeObject => ({
  apiVersion: 'example.com/v1',
  kind: 'Thing',
  metadata: { name: 'a', namespace: 'default', uid: 'u1', resourceVersion: '1', finalizers },
});

describe('range hold', () => {
  it('puts the release finalizer on before asking IPAM, and answers the held range with its claim', async () => {
    const w = world({ allocate: 'fd20::/48' });
    const result = await holdRange(w.put(thing()), w.range);
    assert.deepEqual(w.writes, [`finalizers ["${FINALIZER}"]`, 'create claim thing-u1']);
    assert.ok(result.held);
    assert.equal(result.cidr, 'fd20::/48');
    assert.deepEqual(result.ref, {
      project: 'alpha',
      namespace: 'default',
      claimName: 'thing-u1',
      poolName: 'pool-a',
    });
    assert.deepEqual(result.object.metadata.finalizers, [FINALIZER]);
    assert.deepEqual(w.reports, [], 'what to report on a held range is the controller’s');
  });

  it('reports a claim IPAM bound to no range, and answers the backstop', async () => {
    const w = world({ allocate: '' });
    const result = await holdRange(w.put(thing()), w.range);
    assert.deepEqual(result, { held: false, outcome: { kind: 'after', ms: BACKSTOP_MS } });
    assert.equal(w.reports.length, 1);
    assert.equal(w.reports[0].status, 'False');
    assert.equal(w.reports[0].reason, IpamFailureReason.AllocationFailed);
  });

  it('gives the range back, then removes the finalizer', async () => {
    const w = world();
    const outcome = await releaseRange(w.put(thing([FINALIZER])), w.range);
    assert.equal(outcome, undefined);
    assert.deepEqual(w.writes, ['delete claim thing-u1', 'finalizers []']);
  });

  it('keeps the finalizer while IPAM refuses the release, reporting rangeOccupied, and answers the backstop', async () => {
    const w = world({ refuseDelete: statusError(409, 'Conflict', 'addresses inside') });
    const outcome = await releaseRange(w.put(thing([FINALIZER])), w.range);
    assert.deepEqual(outcome, { kind: 'after', ms: BACKSTOP_MS });
    assert.deepEqual(w.writes, ['delete claim thing-u1']);
    assert.deepEqual(w.reports, [
      { status: 'False', reason: 'RangeOccupied', message: 'occupied: addresses inside' },
    ]);
  });

  it('skips IPAM when told no class was ever configured, and does nothing without the finalizer', async () => {
    const w = world();
    await releaseRange(w.put(thing([FINALIZER])), w.range, false);
    assert.deepEqual(w.writes, ['finalizers []']);
    assert.equal(await releaseRange(w.objects.get('a')!, w.range), undefined);
    assert.deepEqual(w.writes, ['finalizers []']);
  });
});

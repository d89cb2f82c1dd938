import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { projectCrds } from '../apis/crds.ts';
import { IPAM_GROUP, IPAM_VERSION } from '../apis/ipam/v1alpha1/group.ts';
import { networkLocationScope, networkScope } from '../apis/ipam/v1alpha1/scope.ts';
import type { KubeObject } from '../apiserver/objects.ts';
import { Plane } from '../apiserver/plane.ts';
import type { ResourceType } from '../apiserver/resources/resource-type.ts';
import { createObject, deleteObject, readObject, removeFinalizer } from '../apiserver/writes.ts';
import { installDefaultIpamConfig } from './default-config.ts';
import { ipamAdmission } from './hook.ts';

const settle = () => new Promise((resolve) => setImmediate(resolve));
const HOLD = 'example.com/hold';

/** A project plane in process: the IPAM CRDs, the hook, the default set. */
function setup() {
  const plane = new Plane('project-p', '/planes/project-p');
  const crds = plane.catalog.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
  for (const crd of projectCrds.filter((c) => c.spec.group === IPAM_GROUP)) {
    createObject(plane, crds, crd as unknown as KubeObject);
  }
  plane.addAdmission(ipamAdmission(plane));
  installDefaultIpamConfig(plane);
  const type = (plural: string): ResourceType => plane.catalog.lookup(IPAM_GROUP, IPAM_VERSION, plural)!;
  const [claims, allocations, pools] = [type('ipclaims'), type('ipallocations'), type('ippools')];
  const names = (t: ResourceType) => plane.log.list(t.storage).map((o) => o.metadata.name!);
  const create = (name: string, spec: object, finalizers?: string[]) =>
    createObject(plane, claims, { metadata: { name, namespace: 'default', finalizers }, spec });
  return { plane, claims, allocations, pools, names, create };
}

describe('IPAM allocation hook', () => {
  it('lets no watcher see a bound claim before its allocation and pools exist', () => {
    const { plane, claims, allocations, pools, create } = setup();
    const seen: (KubeObject | undefined)[] = [];
    plane.log.subscribeAll((event) => {
      if (event.resource !== claims.storage) return;
      seen.push(
        readObject(plane, allocations, 'default', 'e1'),
        readObject(plane, pools, undefined, 'datum-subnet-v6-vpc-us-central-1'),
      );
    });
    create('e1', { ipFamily: 'IPv6', scope: networkLocationScope('vpc', 'us-central-1') });
    assert.equal(seen.length, 2);
    assert.ok(seen.every((object) => object !== undefined));
  });

  it('releases a claim held by a finalizer in the write that starts its deletion, and only then', () => {
    const { plane, claims, allocations, pools, names, create } = setup();
    create('e1', { ipFamily: 'IPv6', scope: networkLocationScope('vpc', 'us-central-1') }, [HOLD]);
    const marked = deleteObject(plane, claims, readObject(plane, claims, 'default', 'e1')!);
    assert.ok(marked.pending);
    assert.deepEqual(names(allocations), []);
    const revision = plane.log.revision;
    deleteObject(plane, claims, marked.object);
    assert.equal(plane.log.revision, revision, 'a second delete wrote again');
    removeFinalizer(plane, claims, marked.object, HOLD);
    assert.deepEqual(names(claims), []);
    assert.deepEqual(names(pools).sort(), [
      'datum-endpoint-v4-root',
      'datum-network-v6-root',
      'datum-public-v4-root',
    ]);
  });

  it('empties a terminating namespace holding occupied ranges and bound allocations', async () => {
    const { plane, claims, allocations, pools, names, create } = setup();
    create('e1', { ipFamily: 'IPv6', scope: networkLocationScope('vpc', 'us-central-1') });
    create('network-x', { className: 'datum-network-v6', target: 'ScopeRange', scope: networkScope('vpc') });
    plane.terminateNamespace(plane.namespace('default')!);
    await settle();
    assert.deepEqual(names(claims), []);
    assert.deepEqual(names(allocations), []);
    assert.deepEqual(names(pools).sort(), [
      'datum-endpoint-v4-root',
      'datum-network-v6-root',
      'datum-public-v4-root',
    ]);
    assert.equal(plane.namespace('default'), undefined);
  });
});

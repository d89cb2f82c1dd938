import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Plane } from '../apiserver/plane.ts';
import { createObject, readObject, updateObject } from '../apiserver/writes.ts';
import { CRDS, crdsOfPlane, installPlaneCrds } from './bootstrap.ts';

const NETWORKS = 'networks.networking.datumapis.com';

function crdType(plane: Plane) {
  return plane.catalog.lookup(CRDS.group, CRDS.version, CRDS.plural)!;
}

function storedCrd(plane: Plane, name = NETWORKS) {
  return readObject(plane, crdType(plane), undefined, name)!;
}

function networkType(plane: Plane) {
  return plane.catalog.lookup('networking.datumapis.com', 'v1alpha', 'networks')!;
}

describe('fleet bootstrap: CRDs prepared once', () => {
  it('gives every plane of a kind the same frozen schemas, and serves the kind in each', () => {
    const [a, b] = [new Plane('project-a', ''), new Plane('project-b', '')];
    installPlaneCrds(a, crdsOfPlane.project);
    installPlaneCrds(b, crdsOfPlane.project);
    const [versionsA, versionsB] = [a, b].map(
      (plane) => (storedCrd(plane).spec as { versions: unknown }).versions,
    );
    assert.equal(versionsA, versionsB, 'one copy of the schemas for both planes');
    assert.ok(Object.isFrozen(versionsA));
    assert.equal(networkType(a).schema, networkType(b).schema);
    assert.notEqual(storedCrd(a).metadata.uid, storedCrd(b).metadata.uid, 'each plane has its own object');
    // Each plane admits its Networks with the shared schema.
    for (const plane of [a, b]) {
      const stored = createObject(plane, networkType(plane), {
        apiVersion: 'networking.datumapis.com/v1alpha',
        kind: 'Network',
        metadata: { name: 'net', namespace: 'default' },
        spec: { ipam: { mode: 'Auto' } },
      });
      assert.equal(stored.metadata.name, 'net');
    }
  });

  it("a change to one plane's CRD reaches no other plane", () => {
    const [a, b] = [new Plane('project-a', ''), new Plane('project-b', '')];
    installPlaneCrds(a, crdsOfPlane.project);
    installPlaneCrds(b, crdsOfPlane.project);
    const before = JSON.stringify(storedCrd(b));
    const old = storedCrd(a);
    const spec = old.spec as { versions: { additionalPrinterColumns?: unknown[] }[] };
    const column = { name: 'Extra', type: 'string', jsonPath: '.metadata.name' };
    updateObject(
      a,
      crdType(a),
      {
        ...old,
        spec: {
          ...spec,
          versions: spec.versions.map((v) => ({
            ...v,
            additionalPrinterColumns: [...(v.additionalPrinterColumns ?? []), column],
          })),
        },
      },
      old,
    );
    const changed = (storedCrd(a).spec as typeof spec).versions[0].additionalPrinterColumns!;
    assert.deepEqual(changed.at(-1), column);
    assert.equal(JSON.stringify(storedCrd(b)), before);
    // Installing again puts plane a's CRD back as prepared, and leaves plane b untouched.
    installPlaneCrds(a, crdsOfPlane.project);
    assert.equal(
      (storedCrd(a).spec as { versions: unknown }).versions,
      (storedCrd(b).spec as { versions: unknown }).versions,
    );
    assert.equal(JSON.stringify(storedCrd(b)), before);
  });
});

/**
 * Seeds a project plane with the default IPAM configuration of apis.md §2.7: the five IPClasses
 * and the three root IPPools of default-set.ts.
 *
 * Guarantees: when it returns, every class and root pool of the set exists; one that already
 * exists is left as it is, so seeding again (a restart) keeps an operator's changes. Each object
 * is created through the plane's write path, admission included, so with the IPAM hook
 * registered the pools are checked like any client's.
 * Assumes: the IPAM CRDs are served in the plane (throws otherwise).
 */
import type { KubeObject } from '../apiserver/objects.ts';
import type { Plane } from '../apiserver/plane.ts';
import { createObject, readObject } from '../apiserver/writes.ts';
import { defaultIpClasses, defaultRootPools } from '../apis/ipam/v1alpha1/default-set.ts';
import { IPAM_GROUP, IPAM_VERSION } from '../apis/ipam/v1alpha1/group.ts';

export function installDefaultIpamConfig(plane: Plane): void {
  const seeds: [plural: string, objects: readonly KubeObject[]][] = [
    ['ipclasses', defaultIpClasses],
    ['ippools', defaultRootPools],
  ];
  for (const [plural, objects] of seeds) {
    const type = plane.catalog.lookup(IPAM_GROUP, IPAM_VERSION, plural);
    if (!type)
      throw new Error(`${plural}.${IPAM_GROUP}/${IPAM_VERSION} is not served in plane ${plane.name}`);
    for (const object of objects) {
      if (readObject(plane, type, undefined, object.metadata.name!)) continue;
      createObject(plane, type, object);
    }
  }
}

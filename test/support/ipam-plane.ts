/**
 * A project plane of a test server composed the way the fleet composes one: the project CRDs
 * installed, the embedded IPAM allocation hook registered, and the default IPAM set of apis.md
 * §2.7 seeded (through the hook, so its pools are checked like any other).
 */
import { projectCrds } from '../../src/apis/crds.ts';
import { installCrds } from '../../src/apis/install-crds.ts';
import type { Plane } from '../../src/apiserver/plane.ts';
import { installDefaultIpamConfig } from '../../src/ipam/default-config.ts';
import { ipamAdmission } from '../../src/ipam/hook.ts';
import type { TestServer } from './apiserver.ts';

/** Registers the IPAM hook in a plane already serving the project CRDs, and seeds the default set. */
export function serveIpam(plane: Plane): void {
  plane.addAdmission(ipamAdmission(plane));
  installDefaultIpamConfig(plane);
}

/** Installs the project CRDs in the test server's plane `name`, then serves IPAM there. */
export async function ipamProjectPlane(t: TestServer, name: string): Promise<Plane> {
  await installCrds(t.kubeConfig(name), projectCrds);
  const plane = t.server.plane(name);
  if (!plane) throw new Error(`the test server has no plane ${name}`);
  serveIpam(plane);
  return plane;
}

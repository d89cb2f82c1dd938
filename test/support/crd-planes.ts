/**
 * The four kinds of plane a test server stands in for, and the CRDs apis.md §0.1 installs in
 * each (the hub also gets the embedded propagation engine's kinds).
 */
import {
  cellCrds,
  hubCrds,
  platformCrds,
  projectCrds,
  propagationCrds,
  type CustomResourceDefinition,
} from '../../src/apis/crds.ts';
import { installCrds } from '../../src/apis/install-crds.ts';
import type { TestServer } from './apiserver.ts';

export const PLATFORM = 'platform-plane';
export const PROJECT = 'project';
export const HUB = 'hub';
export const CELL = 'cell';
export const PLANES = [PLATFORM, PROJECT, HUB, CELL];

export const crdsByPlane: Record<string, CustomResourceDefinition[]> = {
  [PLATFORM]: platformCrds,
  [PROJECT]: projectCrds,
  [HUB]: [...hubCrds, ...propagationCrds],
  [CELL]: cellCrds,
};

export async function installPlaneCrds(t: TestServer): Promise<void> {
  await Promise.all(PLANES.map((plane) => installCrds(t.kubeConfig(plane), crdsByPlane[plane])));
}

/**
 * The notes a trace prints under a hop: what else was found about an object, in the words the
 * tests assert.
 */
import { hubNamespaceName } from '../apis/common/upstream.ts';
import type { Route } from './hop.ts';

export const notes = {
  unreadable: (what: string) => `${what} could not be read`,
  missingAbove: (what: string) => `${what} is missing or unreadable`,
  dataPlane: (condition: string) =>
    `${condition}: waiting for the data plane, which netpresence does not own`,
  dataPlaneRefused: (reason: string, message: string) =>
    `Programmed=False ${reason}: ${message} (the data plane refuses it; netpresence does not own it)`,
  stale: 'spec differs from its source',
  projectContextOfOtherPair: (network: string, location: string) =>
    `serves network "${network}" in location "${location}"`,
  deleting: 'being deleted',
  ofEarlierNetwork: 'owned by an earlier network of the same name',
  namespaceUid: (uid: string, hubNamespace: string) =>
    `uid ${uid}: its hub namespace is "${hubNamespaceName(uid)}", not "${hubNamespace}"`,
  familiesCarried: (families: string[]) => `carries ${families.join(', ') || 'no family'}`,
  noPermanentId: 'no propagation engine has taken it up',
  routesTo: (route: Route) => `routes to project "${route.project}" namespace "${route.projectNamespace}"`,
};

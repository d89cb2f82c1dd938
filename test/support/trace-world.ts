/**
 * A complete, healthy world for trace tests, in a FakePlaneReader: project `project-alpha` with
 * Network `vpc` present and Ready in `us-central-1` — binding, context, Subnet, hub copies,
 * policy, Cluster `cell-us-central-1` with its copies, and claim `web-0` bound to interface
 * `web-0` with its address held in IPAM, and the interface's hub and project copies. Tests break one thing and trace.
 *
 * Guarantees: traced as built, every hop is ok (the data plane's conditions left at their seed);
 * the mutators change exactly the object they name, in every plane it is copied to when asked.
 */
import type { Condition } from '../../src/apis/common/condition.ts';
import { CLUSTER_LOCATION_LABEL, LOCATION_LABEL, NETWORK_LABEL } from '../../src/apis/common/labels.ts';
import { UPSTREAM_CLUSTER_NAME_LABEL, UPSTREAM_NAMESPACE_LABEL } from '../../src/apis/common/upstream.ts';
import { CPP_PERMANENT_ID_LABEL } from '../../src/apis/policy/v1alpha1/cluster-propagation-policy.ts';
import type { KubeObject } from '../../src/client/types.ts';
import { HUB_CONTEXT, PLATFORM_CONTEXT } from '../../src/trace/contexts.ts';
import { FakePlaneReader } from './fake-plane-reader.ts';
import { Kinds } from '../../src/trace/reader.ts';

export const PROJECT = 'project-alpha';
export const PROJECT_PLANE = 'project-project-alpha';
export const CELL = 'cell-us-central-1';
export const LOCATION = 'us-central-1';
export const HUB_NS = 'ns-u1';
export const NETWORK = 'vpc';
export const CONTEXT = 'vpc-us-central-1';
export const SUBNET = 'vpc-us-central-1-ipv6';
export const BINDING = 'web';
export const CLAIM = 'web-0';

export function condition(
  type: string,
  status: Condition['status'],
  reason: string,
  message = '',
): Condition {
  return { type, status, reason, message, lastTransitionTime: '2026-01-01T00:00:00Z' };
}

const ready = (reason = 'Ready') => [condition('Ready', 'True', reason)];
const hubNamespaceLabels = {
  [UPSTREAM_CLUSTER_NAME_LABEL]: `cluster-${PROJECT}`,
  [UPSTREAM_NAMESPACE_LABEL]: 'default',
};
const pairLabels = { [NETWORK_LABEL]: NETWORK, [LOCATION_LABEL]: LOCATION };

export const contextSpec = () => ({
  network: { name: NETWORK },
  location: { name: LOCATION },
  ipFamilies: ['IPv6'],
  mtu: 1460,
  networkGeneration: 1,
});
export const subnetSpec = () => ({
  subnetClass: 'private',
  networkContext: { name: CONTEXT },
  location: { name: LOCATION },
  ipFamily: 'IPv6',
  startAddress: 'fd20::',
  prefixLength: 64,
});
const seeded = (...types: string[]) => ({
  conditions: types.map((type) => condition(type, 'Unknown', 'Pending')),
});

export class TestWorld {
  readonly reader = new FakePlaneReader();

  constructor() {
    const r = this.reader;
    r.put(PLATFORM_CONTEXT, Kinds.project, {
      metadata: { name: PROJECT },
      spec: { ownerRef: { kind: 'Organization', name: 'acme' } },
      status: { conditions: ready() },
    });
    r.put(HUB_CONTEXT, Kinds.namespace, { metadata: { name: HUB_NS, labels: hubNamespaceLabels } });
    r.put(HUB_CONTEXT, Kinds.networkBinding, {
      metadata: { name: BINDING, namespace: HUB_NS, labels: pairLabels },
      spec: { network: { name: NETWORK }, location: { name: LOCATION } },
      status: {
        conditions: ready('NetworkContextReady'),
        networkContextRef: { namespace: 'default', name: CONTEXT },
      },
    });
    r.put(PROJECT_PLANE, Kinds.namespace, { metadata: { name: 'default', uid: 'u1' } });
    r.put(PROJECT_PLANE, Kinds.locationBinding, {
      metadata: { name: LOCATION },
      spec: { locationRef: { name: LOCATION } },
    });
    r.put(PROJECT_PLANE, Kinds.network, {
      metadata: { name: NETWORK, namespace: 'default', uid: 'n1', generation: 1 },
      spec: { ipam: { mode: 'Auto' }, ipFamilies: ['IPv6'], mtu: 1460 },
      status: { conditions: ready() },
    });
    this.putContext(PROJECT_PLANE, {
      metadata: {
        name: CONTEXT,
        namespace: 'default',
        labels: pairLabels,
        ownerReferences: [
          {
            apiVersion: 'networking.datumapis.com/v1alpha',
            kind: 'Network',
            name: NETWORK,
            uid: 'n1',
            controller: true,
          },
        ],
      },
      spec: contextSpec(),
      status: { conditions: ready() },
    });
    r.put(PROJECT_PLANE, Kinds.subnet, {
      metadata: { name: SUBNET, namespace: 'default', labels: pairLabels },
      spec: subnetSpec(),
      status: {
        startAddress: 'fd20::',
        prefixLength: 64,
        conditions: [
          condition('Allocated', 'True', 'PrefixAllocated'),
          condition('Programmed', 'Unknown', 'Pending'),
          condition('Ready', 'False', 'NotProgrammed', 'Subnet is not yet programmed'),
        ],
      },
    });
    for (const plane of [HUB_CONTEXT, CELL]) {
      this.putContext(plane, {
        metadata: { name: CONTEXT, namespace: HUB_NS, labels: pairLabels },
        spec: contextSpec(),
        status: seeded('Ready'),
      });
      r.put(plane, Kinds.subnet, {
        metadata: { name: SUBNET, namespace: HUB_NS, labels: pairLabels },
        spec: subnetSpec(),
        status: seeded('Allocated', 'Programmed', 'Ready'),
      });
    }
    r.put(HUB_CONTEXT, Kinds.clusterPropagationPolicy, {
      metadata: { name: `location-${LOCATION}`, labels: { [CPP_PERMANENT_ID_LABEL]: 'p1' } },
      spec: { resourceSelectors: [] },
    });
    r.put(HUB_CONTEXT, Kinds.cluster, {
      metadata: { name: CELL, labels: { [CLUSTER_LOCATION_LABEL]: LOCATION } },
      spec: { syncMode: 'Push' },
      status: { conditions: ready('ClusterReady') },
    });
    r.put(CELL, Kinds.servingLocation, {
      metadata: { name: LOCATION },
      spec: { topology: { 'topology.datum.net/city-code': 'DFW' } },
    });
    r.put(CELL, Kinds.namespace, { metadata: { name: HUB_NS, labels: hubNamespaceLabels } });
    r.put(CELL, Kinds.networkInterfaceClaim, {
      metadata: { name: CLAIM, namespace: HUB_NS },
      spec: { network: { name: NETWORK } },
      status: {
        networkInterfaceRef: { name: CLAIM },
        conditions: [
          condition('Bound', 'True', 'Bound'),
          condition('Allocated', 'True', 'Allocated'),
          condition('Prepared', 'Unknown', 'Pending'),
          condition('Programmed', 'Unknown', 'Pending'),
          condition('Ready', 'Unknown', 'NotPrepared', 'Waiting for Prepared'),
        ],
      },
    });
    r.put(CELL, Kinds.networkInterface, {
      metadata: {
        name: CLAIM,
        namespace: HUB_NS,
        annotations: { 'networking.datumapis.com/allocation-claim': CLAIM },
      },
      spec: {
        network: { name: NETWORK },
        claimRef: { name: CLAIM },
        interfaceName: 'eth0',
        reclaimPolicy: 'Delete',
        addresses: [
          { family: 'IPv6', address: 'fd20::1:0:0/96', gateway: 'fd20::1', primary: true, class: '' },
        ],
      },
      status: {
        phase: 'Bound',
        conditions: [
          condition('Allocated', 'True', 'Allocated'),
          condition('Programmed', 'Unknown', 'Pending'),
        ],
      },
    });
    for (const [plane, namespace] of [
      [HUB_CONTEXT, HUB_NS],
      [PROJECT_PLANE, 'default'],
    ])
      r.put(plane, Kinds.networkInterface, {
        metadata: { name: `${CLAIM}.${CELL}`, namespace },
        spec: { network: { name: NETWORK } },
        status: { phase: 'Bound', conditions: [] },
      });
    r.put(PROJECT_PLANE, Kinds.ipClaim, {
      metadata: { name: `${CLAIM}.${CELL}-f-ipv6`, namespace: 'default' },
      spec: {},
      status: { phase: 'Bound', allocatedCIDR: 'fd20::1:0:0/96' },
    });
  }

  private putContext(plane: string, object: KubeObject): void {
    this.reader.put(plane, Kinds.networkContext, object);
  }

  /** Changes one object in `plane` in place. */
  async edit<T extends KubeObject>(
    plane: string,
    kind: (typeof Kinds)[keyof typeof Kinds],
    name: string,
    namespace: string | undefined,
    change: (object: T) => void,
  ): Promise<void> {
    const object = await this.reader.get<T>(plane, kind, name, namespace);
    if (!object) throw new Error(`no ${kind.kind} ${name} in ${plane}`);
    change(object);
    this.reader.put(plane, kind, object);
  }

  /** Sets the binding's Ready. */
  bindingReports(reason: string, status: Condition['status'] = 'False'): Promise<void> {
    return this.edit(HUB_CONTEXT, Kinds.networkBinding, BINDING, HUB_NS, (binding) => {
      binding.status = { conditions: [condition('Ready', status, reason, `reported ${reason}`)] };
    });
  }

  /** Sets the claim's Ready (and, with no interface bound yet, Bound and Allocated) as a refusal does. */
  claimRefuses(reason: string, bound = true): Promise<void> {
    return this.edit(CELL, Kinds.networkInterfaceClaim, CLAIM, HUB_NS, (claim) => {
      const refusal = (type: string) => condition(type, 'False', reason, `refused ${reason}`);
      claim.status = bound
        ? {
            networkInterfaceRef: { name: CLAIM },
            conditions: [condition('Bound', 'True', 'Bound'), refusal('Ready')],
          }
        : { conditions: [refusal('Bound'), refusal('Allocated'), refusal('Ready')] };
    });
  }
}

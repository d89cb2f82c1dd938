/**
 * CRDs: one `apiextensions.k8s.io/v1` CustomResourceDefinition per kind, generated from its
 * KindDefinition, and the sets each plane installs (apis.md §0.1, "Kinds installed per plane").
 *
 * Guarantees: `crdFor` is a pure function of the definition — the same kind always gives the
 * same object, keys in one order — with one served storage version, the status subresource
 * exactly when the kind has one, the kind's printer columns, and a structural schema
 * (structural-schema.ts) whose root declares `apiVersion`, `kind`, an undescribed `metadata`
 * and the kind's own fields. `allKinds` holds every kind exactly once.
 */
import type { KindDefinition } from './common/kind.ts';
import { clusterKind } from './cluster/v1alpha1/cluster.ts';
import { ipAllocationKind } from './ipam/v1alpha1/ip-allocation.ts';
import { ipClaimKind } from './ipam/v1alpha1/ip-claim.ts';
import { ipClassKind } from './ipam/v1alpha1/ip-class.ts';
import { ipPoolKind } from './ipam/v1alpha1/ip-pool.ts';
import { locationBindingKind } from './networking/v1alpha/location-binding.ts';
import { locationKind } from './networking/v1alpha/location.ts';
import { networkBindingKind } from './networking/v1alpha/network-binding.ts';
import { networkContextKind } from './networking/v1alpha/network-context.ts';
import { networkInterfaceClaimKind } from './networking/v1alpha/network-interface-claim.ts';
import { networkInterfaceKind } from './networking/v1alpha/network-interface.ts';
import { networkKind } from './networking/v1alpha/network.ts';
import { servingLocationKind } from './networking/v1alpha/serving-location.ts';
import { subnetKind } from './networking/v1alpha/subnet.ts';
import { clusterPropagationPolicyKind } from './policy/v1alpha1/cluster-propagation-policy.ts';
import { propagationPolicyKind } from './policy/v1alpha1/propagation-policy.ts';
import { projectKind } from './resourcemanager/v1alpha1/project.ts';
import { serviceAvailabilityKind } from './services/v1alpha1/service-availability.ts';
import { workKind } from './work/v1alpha1/work.ts';
import { clusterResourceBindingKind } from './work/v1alpha2/cluster-resource-binding.ts';
import { resourceBindingKind } from './work/v1alpha2/resource-binding.ts';
import { toStructural, type JsonSchema } from './structural-schema.ts';

export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string };
  spec: {
    group: string;
    names: {
      kind: string;
      listKind: string;
      plural: string;
      singular: string;
      shortNames?: string[];
      categories?: string[];
    };
    scope: 'Namespaced' | 'Cluster';
    versions: {
      name: string;
      served: true;
      storage: true;
      additionalPrinterColumns: KindDefinition['printerColumns'];
      subresources?: { status: Record<string, never> };
      schema: { openAPIV3Schema: JsonSchema };
    }[];
  };
}

export function crdFor(definition: KindDefinition): CustomResourceDefinition {
  const { group, kind, plural, singular, shortNames, categories } = definition;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      names: {
        kind,
        listKind: `${kind}List`,
        plural,
        singular,
        ...(shortNames.length > 0 && { shortNames }),
        ...(categories.length > 0 && { categories }),
      },
      scope: definition.scope,
      versions: [
        {
          name: definition.version,
          served: true,
          storage: true,
          additionalPrinterColumns: definition.printerColumns,
          ...(definition.statusSubresource && { subresources: { status: {} } }),
          schema: { openAPIV3Schema: rootSchema(definition) },
        },
      ],
    },
  };
}

/** The kind's fields under the Kubernetes header; metadata is the server's to describe. */
function rootSchema(definition: KindDefinition): JsonSchema {
  const own = toStructural(definition.schema);
  const { description, type: _object, properties, required, ...rest } = own;
  return {
    ...(description !== undefined && { description }),
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
      ...(properties as JsonSchema),
    },
    ...(required !== undefined && { required }),
    ...rest,
  };
}

export const platformKinds: KindDefinition[] = [projectKind, locationKind, serviceAvailabilityKind];

export const projectKinds: KindDefinition[] = [
  networkKind,
  networkContextKind,
  subnetKind,
  locationBindingKind,
  ipClassKind,
  ipPoolKind,
  ipClaimKind,
  ipAllocationKind,
  networkInterfaceKind,
];

export const hubKinds: KindDefinition[] = [
  networkBindingKind,
  networkContextKind,
  subnetKind,
  servingLocationKind,
  networkInterfaceKind,
  clusterKind,
  propagationPolicyKind,
  clusterPropagationPolicyKind,
];

/** Installed on a hub only where the embedded propagation engine runs (no Karmada). */
export const propagationKinds: KindDefinition[] = [resourceBindingKind, clusterResourceBindingKind, workKind];

export const cellKinds: KindDefinition[] = [
  networkContextKind,
  subnetKind,
  servingLocationKind,
  networkInterfaceClaimKind,
  networkInterfaceKind,
];

/** Every kind, each once, in a fixed order. */
export const allKinds: KindDefinition[] = [
  ...new Set([...platformKinds, ...projectKinds, ...hubKinds, ...propagationKinds, ...cellKinds]),
];

export const platformCrds = platformKinds.map(crdFor);
export const projectCrds = projectKinds.map(crdFor);
export const hubCrds = hubKinds.map(crdFor);
export const propagationCrds = propagationKinds.map(crdFor);
export const cellCrds = cellKinds.map(crdFor);
export const allCrds = allKinds.map(crdFor);

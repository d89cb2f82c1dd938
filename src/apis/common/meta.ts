/**
 * Object metadata and the typed object shape every kind in `src/apis` shares.
 *
 * Guarantees: `TypedObject<S>` is exactly what the API server stores for a kind whose schema is
 * `S` (spec and status as the TypeBox schema describes them) plus the Kubernetes header. Fields
 * that have a schema default are optional in the type, because a writer may leave them out;
 * a stored object always carries them.
 */
import type { Static, TSchema } from '@sinclair/typebox';

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/**
 * Kubernetes object metadata — the one definition: the API server stores it, clients read it,
 * and every kind's type carries it. Fields the server does not know are kept (the index
 * signature), as a real API server would keep them for a newer client.
 */
export type ObjectMeta = {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: unknown[];
  [field: string]: unknown;
};

/** A stored object of the kind whose spec/status schema is `S`. */
export type TypedObject<S extends TSchema> = {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
} & Static<S>;

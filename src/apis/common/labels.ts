/**
 * Label keys shared by several kinds (apis.md §1.1, §7.2). Values are names, never UIDs, except
 * `network-uid`. Kind-specific keys live beside their kind.
 */

/** The network's name, on NetworkBindings, NetworkContexts and Subnets in every plane. */
export const NETWORK_LABEL = 'networking.datumapis.com/network';
/** The location's name, on the same objects, and on LocationBindings. */
export const LOCATION_LABEL = 'networking.datumapis.com/location';
/** The Network's `metadata.uid`, on NetworkBindings and project-plane NetworkContexts only. */
export const NETWORK_UID_LABEL = 'networking.datumapis.com/network-uid';
/** The label of a Cluster serving a location; the placement of `location-<loc>` selects it. */
export const CLUSTER_LOCATION_LABEL = 'topology.datum.net/location';

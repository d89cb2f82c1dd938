/** The networking.datumapis.com/v1alpha group: netpresence's own kinds. */
export const NETWORKING_GROUP = 'networking.datumapis.com';
export const NETWORKING_VERSION = 'v1alpha';
export const NETWORKING_API_VERSION = `${NETWORKING_GROUP}/${NETWORKING_VERSION}`;

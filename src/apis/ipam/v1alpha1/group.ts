/** The ipam.miloapis.com/v1alpha1 group: the minimal IPAM served in every project plane. */
export const IPAM_GROUP = 'ipam.miloapis.com';
export const IPAM_VERSION = 'v1alpha1';
export const IPAM_API_VERSION = `${IPAM_GROUP}/${IPAM_VERSION}`;

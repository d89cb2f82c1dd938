/**
 * The default IPAM configuration of every project plane (apis.md §2.7): the fleet seeds it, and
 * production IPAM provides the equivalent.
 *
 * Every spec is written out in full, defaults included, so it equals the stored spec.
 *
 * Consequences in an empty project: the first network gets `fd20::/48`, its first location
 * `fd20::/64`, whose first /96 (holding the gateway `fd20::1`) is never handed out, so the first
 * IPv6 interface gets `fd20::1:0:0/96`; the first IPv4 interface gets `10.128.0.1/32`.
 */
import { IPAM_API_VERSION } from './group.ts';
import type { IPClass } from './ip-class.ts';
import type { IPPool } from './ip-pool.ts';

/** The class of a network's /48: netpresence's default network class. */
export const NETWORK_CLASS = 'datum-network-v6';
/** The class of a location's /64: netpresence's default subnet class. */
export const SUBNET_CLASS = 'datum-subnet-v6';
export const ENDPOINT_V6_CLASS = 'datum-endpoint-v6';
export const ENDPOINT_V4_CLASS = 'datum-endpoint-v4';
export const PUBLIC_V4_CLASS = 'datum-public-v4';

function ipClass(name: string, spec: IPClass['spec']): IPClass {
  return { apiVersion: IPAM_API_VERSION, kind: 'IPClass', metadata: { name }, spec };
}

function rootPool(name: string, className: string, cidr: string): IPPool {
  return { apiVersion: IPAM_API_VERSION, kind: 'IPPool', metadata: { name }, spec: { className, cidr } };
}

export const defaultIpClasses: IPClass[] = [
  ipClass(NETWORK_CLASS, { ipFamily: 'IPv6', prefixLength: 48, scopeRoles: ['network'], default: false }),
  ipClass(SUBNET_CLASS, {
    ipFamily: 'IPv6',
    prefixLength: 64,
    parentClassName: NETWORK_CLASS,
    reservedPrefixLength: 96,
    scopeRoles: ['network', 'location'],
    default: false,
  }),
  ipClass(ENDPOINT_V6_CLASS, {
    ipFamily: 'IPv6',
    prefixLength: 96,
    parentClassName: SUBNET_CLASS,
    scopeRoles: ['network', 'location'],
    default: true,
  }),
  ipClass(ENDPOINT_V4_CLASS, {
    ipFamily: 'IPv4',
    prefixLength: 32,
    reservedPrefixLength: 32,
    scopeRoles: [],
    default: true,
  }),
  ipClass(PUBLIC_V4_CLASS, {
    ipFamily: 'IPv4',
    prefixLength: 32,
    reservedPrefixLength: 32,
    scopeRoles: [],
    default: false,
  }),
];

export const defaultRootPools: IPPool[] = [
  rootPool(`${NETWORK_CLASS}-root`, NETWORK_CLASS, 'fd20::/20'),
  rootPool(`${ENDPOINT_V4_CLASS}-root`, ENDPOINT_V4_CLASS, '10.128.0.0/16'),
  rootPool(`${PUBLIC_V4_CLASS}-root`, PUBLIC_V4_CLASS, '203.0.113.0/24'),
];

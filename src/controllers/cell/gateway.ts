/**
 * The gateway rule (controllers.md §10): the gateway an interface address of family F gets from
 * the first Subnet (by name) of its context and family — the address after the subnet's start.
 *
 * Guarantees: `gatewayFor` is a pure function of the Subnets given; the start and prefix length
 * are read from status when status carries them (a present but empty `status.startAddress`
 * counts as stated), else from spec; every refusal names the Subnet and uses the exact
 * `SubnetGatewayUnusable` wording; a gateway is canonical (`fd20::` → `fd20::1`,
 * `10.128.0.0` → `10.128.0.1`).
 *
 * Example: start `10.128.0.7` with prefix 32 is refused — `10.128.0.8` lies outside
 * `10.128.0.7/32`; start `255.255.255.255` with prefix 24 is refused — there is no next address.
 */
import type { IPFamily } from '../../apis/common/refs.ts';
import { gatewayMessages } from '../../apis/networking/v1alpha/claim-refusals.ts';
import type { Subnet } from '../../apis/networking/v1alpha/subnet.ts';
import { bitsOf, formatAddress, parseAddress } from '../../ipam/cidr.ts';

export type GatewayOutcome =
  /** No Subnet addresses this family here: the gateway stays as it is. */
  { kind: 'none' } | { kind: 'gateway'; gateway: string } | { kind: 'refused'; message: string };

/** The Subnets of context `context` and family `family`, in name order. */
export function subnetsFor(subnets: readonly Subnet[], context: string, family: IPFamily): Subnet[] {
  return subnets
    .filter((subnet) => subnet.spec.networkContext.name === context && subnet.spec.ipFamily === family)
    .sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0));
}

export function gatewayFor(subnets: readonly Subnet[], context: string, family: IPFamily): GatewayOutcome {
  const [subnet] = subnetsFor(subnets, context, family);
  if (!subnet) return { kind: 'none' };
  return gatewayOfSubnet(subnet, family);
}

export function gatewayOfSubnet(subnet: Subnet, family: IPFamily): GatewayOutcome {
  const name = subnet.metadata.name!;
  const status = subnet.status ?? {};
  const start =
    'startAddress' in status && status.startAddress !== undefined
      ? status.startAddress
      : subnet.spec.startAddress;
  const prefixLength = status.prefixLength ?? subnet.spec.prefixLength;
  const parsed = parseAddress(start);
  if (!parsed) return { kind: 'refused', message: gatewayMessages.noStartAddress(name, family) };
  if (parsed.family !== family)
    return { kind: 'refused', message: gatewayMessages.wrongFamily(name, family, start) };
  const bits = bitsOf(family);
  const noNext = {
    kind: 'refused' as const,
    message: gatewayMessages.noAddressAfterStart(name, family, start, prefixLength),
  };
  if (!Number.isInteger(prefixLength) || prefixLength < 0 || prefixLength > bits) return noNext;
  const hostBits = BigInt(bits - prefixLength);
  const last = ((parsed.address >> hostBits) << hostBits) | ((1n << hostBits) - 1n);
  const next = parsed.address + 1n;
  if (next > last) return noNext;
  return { kind: 'gateway', gateway: formatAddress(family, next) };
}

/**
 * coordination.k8s.io/v1 Lease content, as Kubernetes decodes and validates it
 * (ValidateLeaseSpec): wrong JSON types are 400 in the Go decoder's words; a
 * `leaseDurationSeconds` that is not positive, a negative `leaseTransitions`, an unknown
 * `strategy` or a `preferredHolder` without a strategy are 422 naming the field.
 */
import { forbiddenField, invalidValue, notSupported, type FieldError } from '../errors.ts';
import type { KubeObject } from '../objects.ts';
import { readInt32, readObject, readString, readTime, type GoField } from './go-decoding.ts';

const STRATEGIES = ['OldestEmulationVersion'];

export function validateLease(object: KubeObject, version: string): FieldError[] {
  const at = (struct: string, path: string): GoField => ({ kind: 'Lease', version, struct, path });
  const spec = readObject(at('Lease', 'spec'), object.spec, 'v1.LeaseSpec');
  if (!spec) return [];
  const field = (name: string) => at('LeaseSpec', `spec.${name}`);
  readString(field('holderIdentity'), spec.holderIdentity);
  const duration = readInt32(field('leaseDurationSeconds'), spec.leaseDurationSeconds);
  readTime(field('acquireTime'), spec.acquireTime, true);
  readTime(field('renewTime'), spec.renewTime, true);
  const transitions = readInt32(field('leaseTransitions'), spec.leaseTransitions);
  const strategy = readString(field('strategy'), spec.strategy, 'v1.CoordinatedLeaseStrategy');
  const preferred = readString(field('preferredHolder'), spec.preferredHolder);
  const errors: FieldError[] = [];
  if (duration !== undefined && duration <= 0)
    errors.push(invalidValue('spec.leaseDurationSeconds', duration, 'must be greater than 0'));
  if (transitions !== undefined && transitions < 0)
    errors.push(invalidValue('spec.leaseTransitions', transitions, 'must be greater than or equal to 0'));
  if (strategy !== undefined && !STRATEGIES.includes(strategy))
    errors.push(notSupported('spec.strategy', strategy, STRATEGIES));
  if (preferred && !strategy)
    errors.push(forbiddenField('spec.preferredHolder', 'may only be specified if `strategy` is defined'));
  return errors;
}

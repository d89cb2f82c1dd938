/**
 * core/v1 Namespace content, as Kubernetes decodes and validates it (ValidateNamespace): wrong
 * JSON types are 400 in the Go decoder's words; each `spec.finalizers` entry must be a qualified
 * name, and one without a `/` must be a standard finalizer (`kubernetes`), else 422.
 */
import { invalidValue, type FieldError } from '../errors.ts';
import type { KubeObject } from '../objects.ts';
import { labelKeyErrors } from '../selectors/label-syntax.ts';
import {
  cannotUnmarshal,
  readObject,
  readString,
  readStrings,
  readTime,
  type GoField,
} from './go-decoding.ts';

const STANDARD_FINALIZERS = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

export function validateNamespace(object: KubeObject): FieldError[] {
  const at = (struct: string, path: string): GoField => ({ kind: 'Namespace', version: 'v1', struct, path });
  const spec = readObject(at('Namespace', 'spec'), object.spec, 'v1.NamespaceSpec');
  const finalizers = readStrings(
    at('NamespaceSpec', 'spec.finalizers'),
    spec?.finalizers,
    '[]v1.FinalizerName',
    'v1.FinalizerName',
  );
  const status = readObject(at('Namespace', 'status'), object.status, 'v1.NamespaceStatus');
  readString(at('NamespaceStatus', 'status.phase'), status?.phase, 'v1.NamespacePhase');
  const conditions = status?.conditions;
  if (conditions != null) {
    if (!Array.isArray(conditions))
      throw cannotUnmarshal(
        at('NamespaceStatus', 'status.conditions'),
        conditions,
        '[]v1.NamespaceCondition',
      );
    for (const condition of conditions as unknown[]) {
      const item = readObject(
        at('NamespaceStatus', 'status.conditions'),
        condition,
        'v1.NamespaceCondition',
      )!;
      const field = (name: string) => at('NamespaceCondition', `status.conditions.${name}`);
      for (const name of ['type', 'status', 'reason', 'message']) readString(field(name), item[name]);
      readTime(field('lastTransitionTime'), item.lastTransitionTime, false);
    }
  }
  const errors: FieldError[] = [];
  for (const finalizer of finalizers) {
    for (const message of labelKeyErrors(finalizer))
      errors.push(invalidValue('spec.finalizers', finalizer, message));
    if (!finalizer.includes('/') && !STANDARD_FINALIZERS.has(finalizer)) {
      errors.push(
        invalidValue(
          'spec.finalizers',
          finalizer,
          'name is neither a standard finalizer name nor is it fully qualified',
        ),
      );
    }
  }
  return errors;
}

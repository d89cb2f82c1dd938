/**
 * The keys the engine's hub components reconcile: a template (apiVersion, kind, namespace,
 * name), a binding (RB or CRB, namespace, name) and a policy (PP or CPP, namespace, name), with
 * their string forms for the workqueue and the mappings between them (§4.1 names).
 *
 * Guarantees: each `…KeyString` is injective and `…KeyFromString` is its inverse (the parts
 * are JSON-encoded, so no name can forge a separator).
 */
import { bindingName } from '../apis/work/v1alpha2/binding-spec.ts';
import type { KubeObject } from '../client/types.ts';
import type { PolicyTier } from './policy-claim.ts';

export interface TemplateKey {
  apiVersion: string;
  kind: string;
  namespace: string; // '' when cluster-scoped
  name: string;
}

export type BindingKind = 'ResourceBinding' | 'ClusterResourceBinding';

export interface BindingKey {
  kind: BindingKind;
  namespace: string; // '' for a CRB
  name: string;
}

export interface PolicyKey {
  tier: PolicyTier;
  namespace: string; // '' for a CPP
  name: string;
}

export const templateKeyString = (key: TemplateKey): string =>
  JSON.stringify([key.apiVersion, key.kind, key.namespace, key.name]);
export function templateKeyFromString(text: string): TemplateKey {
  const [apiVersion, kind, namespace, name] = JSON.parse(text) as string[];
  return { apiVersion, kind, namespace, name };
}

export const bindingKeyString = (key: BindingKey): string =>
  JSON.stringify([key.kind, key.namespace, key.name]);
export function bindingKeyFromString(text: string): BindingKey {
  const [kind, namespace, name] = JSON.parse(text) as [BindingKind, string, string];
  return { kind, namespace, name };
}

export const policyKeyString = (key: PolicyKey): string =>
  JSON.stringify([key.tier, key.namespace, key.name]);
export function policyKeyFromString(text: string): PolicyKey {
  const [tier, namespace, name] = JSON.parse(text) as [PolicyTier, string, string];
  return { tier, namespace, name };
}

export function templateKeyOf(template: KubeObject): TemplateKey {
  return {
    apiVersion: template.apiVersion ?? '',
    kind: template.kind ?? '',
    namespace: template.metadata.namespace ?? '',
    name: template.metadata.name!,
  };
}

/** The binding a template is bound by (§4.1): an RB in its namespace, or a CRB. */
export function bindingKeyOfTemplate(template: TemplateKey): BindingKey {
  return template.namespace
    ? {
        kind: 'ResourceBinding',
        namespace: template.namespace,
        name: bindingName(template.kind, template.name),
      }
    : { kind: 'ClusterResourceBinding', namespace: '', name: bindingName(template.kind, template.name) };
}

export function bindingKeyOf(binding: KubeObject): BindingKey {
  return binding.metadata.namespace
    ? { kind: 'ResourceBinding', namespace: binding.metadata.namespace, name: binding.metadata.name! }
    : { kind: 'ClusterResourceBinding', namespace: '', name: binding.metadata.name! };
}

/** The template a binding's `spec.resource` names. */
export function templateKeyOfBinding(binding: KubeObject): TemplateKey | undefined {
  const resource = (binding.spec as { resource?: TemplateResource } | undefined)?.resource;
  if (!resource) return undefined;
  return {
    apiVersion: resource.apiVersion,
    kind: resource.kind,
    namespace: resource.namespace ?? '',
    name: resource.name,
  };
}

interface TemplateResource {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

/**
 * Detector (propagation.md §1.3, §2.2–§2.5): decides which policy propagates each template,
 * writes the claim onto the template, and keeps the template's binding in step with the
 * template and its policy (everything but `spec.clusters`, which is the scheduler's).
 *
 * Guarantees:
 * - reserved namespaces (`karmada-system`, `karmada-cluster`, `karmada-es-*`, `kube-*`) and
 *   templates labelled `resourcetemplate.karmada.io/claimed-by` are never claimed;
 * - a claim sticks: a claimed template keeps its policy while that policy exists and matches;
 *   a missing claimer's keys are removed (binding first, then template) and the template is
 *   chosen afresh; a claimer being deleted, or no longer matching, leaves everything as it is;
 * - a binding is created with its permanent-id, ownerReference and finalizer, and updated only
 *   when its claim keys or spec (resource, placement, conflictResolution,
 *   preserveResourcesOnDeletion) differ; a binding left by an earlier template of the same
 *   name is deleted first, and the new one made once it is gone.
 */
import { randomUUID } from 'node:crypto';
import { jsonEqual } from '../apis/common/json-equal.ts';
import { CLAIMED_BY_LABEL } from '../apis/policy/v1alpha1/template-keys.ts';
import { CRB_FINALIZER, CRB_PERMANENT_ID_LABEL } from '../apis/work/v1alpha2/cluster-resource-binding.ts';
import { RB_FINALIZER, RB_PERMANENT_ID_LABEL } from '../apis/work/v1alpha2/resource-binding.ts';
import { isAlreadyExists } from '../client/errors.ts';
import type { KubeObject } from '../client/types.ts';
import type { ControllerDefinition } from '../runtime/manager-context.ts';
import { type Controller, done, ROUND_TRIP_WORKERS, type Outcome } from '../runtime/controller.ts';
import type { InformerEvent } from '../runtime/informer-contract.ts';
import { forObject, watches } from '../runtime/triggers.ts';
import { choosePolicy } from './choice.ts';
import { claimOf, claimPatch, patched, type Claim, type PolicyTier } from './policy-claim.ts';
import type { EngineContext } from './engine-context.ts';
import { engineController } from './engine-controller.ts';
import { hubView, type Binding, type HubView } from './hub-view.ts';
import {
  bindingKeyOfTemplate,
  templateKeyFromString,
  templateKeyOf,
  templateKeyOfBinding,
  templateKeyString,
  type TemplateKey,
} from './keys.ts';
import { removeClaim, writeMetadata } from './metadata-writes.ts';
import { policyIdLabel, policyIdOf, selectingPolicy, tierOf, type Policy } from './policy-model.ts';
import { BY_CLAIM_ID } from './resources.ts';
import { policyMatches } from './selectors.ts';

export const name = 'propagation-detector';

const RESERVED_NAMESPACES = new Set(['karmada-system', 'karmada-cluster']);

/** §1.3: objects the engine never claims. */
export function neverClaimed(template: KubeObject): boolean {
  const namespace = template.metadata.namespace ?? '';
  if (
    RESERVED_NAMESPACES.has(namespace) ||
    namespace.startsWith('karmada-es-') ||
    namespace.startsWith('kube-')
  )
    return true;
  return Boolean(template.metadata.labels?.[CLAIMED_BY_LABEL]);
}

export async function reconcile(key: TemplateKey, view: HubView): Promise<Outcome> {
  const kind = view.templates.get(key.apiVersion, key.kind);
  const template = kind?.informer.store.get(key.namespace || undefined, key.name);
  if (!template || neverClaimed(template)) return done();
  const claim = claimOf(template);
  if (claim) return keepClaim(template, claim, view);
  const choice = choosePolicy(
    template,
    template.metadata.namespace ? view.propagationPolicies.store.list(template.metadata.namespace) : [],
    view.clusterPropagationPolicies.store.list(),
  );
  if (!choice) return done();
  const fresh: Claim = {
    tier: choice.tier,
    namespace: choice.policy.metadata.namespace,
    name: choice.policy.metadata.name!,
    id: choice.id,
  };
  const claimed = await writeMetadata(view.templateClient(key)!, template, claimPatch(fresh));
  return applyPolicy(claimed, choice.policy, fresh, view);
}

/** §2.2: a claimed template keeps its policy, in each of that policy's states. */
async function keepClaim(template: KubeObject, claim: Claim, view: HubView): Promise<Outcome> {
  const policy = view.policies(claim.tier).store.get(claim.namespace, claim.name);
  if (!policy) {
    const bindingKey = bindingKeyOfTemplate(templateKeyOf(template));
    const binding = view.bindings(bindingKey.kind).get(bindingKey.namespace || undefined, bindingKey.name);
    await removeClaim(view.bindingClient(bindingKey.kind), binding, claim.tier, claim.id);
    await removeClaim(view.templateClient(templateKeyOf(template))!, template, claim.tier, claim.id);
    return done();
  }
  const id = policyIdOf(policy, claim.tier);
  if (policy.metadata.deletionTimestamp || !id) return done();
  if (!policyMatches(selectingPolicy(policy, claim.tier), template)) return done();
  const current: Claim = { ...claim, id };
  const claimed =
    id === claim.id
      ? template
      : await writeMetadata(view.templateClient(templateKeyOf(template))!, template, claimPatch(current));
  return applyPolicy(claimed, policy, current, view);
}

/** §2.5: the binding from the template and its claiming policy. */
async function applyPolicy(
  template: KubeObject,
  policy: Policy,
  claim: Claim,
  view: HubView,
): Promise<Outcome> {
  const bindingKey = bindingKeyOfTemplate(templateKeyOf(template));
  const client = view.bindingClient(bindingKey.kind);
  const existing = view.bindings(bindingKey.kind).get(bindingKey.namespace || undefined, bindingKey.name);
  if (existing?.metadata.deletionTimestamp) return done(); // its deletion event wakes this template
  if (existing && !ownedBy(existing, template)) {
    await client.delete(bindingKey.name, bindingKey.namespace || undefined, {
      preconditions: { uid: existing.metadata.uid },
    });
    return done();
  }
  const patch = claimPatch(claim);
  const spec = bindingSpec(template, policy);
  if (!existing) {
    const cluster = bindingKey.kind === 'ClusterResourceBinding';
    const binding: Binding = {
      metadata: {
        name: bindingKey.name,
        ...(cluster ? {} : { namespace: bindingKey.namespace }),
        labels: {
          ...patched({}, patch.labels),
          [cluster ? CRB_PERMANENT_ID_LABEL : RB_PERMANENT_ID_LABEL]: randomUUID(),
        },
        annotations: patched({}, patch.annotations),
        ownerReferences: [ownerReference(template)],
        finalizers: [cluster ? CRB_FINALIZER : RB_FINALIZER],
      },
      spec,
    };
    try {
      await client.create(binding);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
    return done();
  }
  const labels = patched(existing.metadata.labels, patch.labels);
  const annotations = patched(existing.metadata.annotations, patch.annotations);
  const desiredSpec = { ...spec, ...(existing.spec.clusters ? { clusters: existing.spec.clusters } : {}) };
  const extra = Object.fromEntries(
    Object.entries(existing.spec).filter(([field]) => !MANAGED_SPEC_FIELDS.has(field)),
  );
  const nextSpec = { ...extra, ...desiredSpec };
  if (
    jsonEqual(labels, existing.metadata.labels ?? {}) &&
    jsonEqual(annotations, existing.metadata.annotations ?? {}) &&
    jsonEqual(nextSpec, existing.spec)
  )
    return done();
  await client.update({
    ...existing,
    metadata: { ...existing.metadata, labels, annotations },
    spec: nextSpec,
  });
  return done();
}

const MANAGED_SPEC_FIELDS = new Set([
  'resource',
  'placement',
  'conflictResolution',
  'preserveResourcesOnDeletion',
  'clusters',
]);

function bindingSpec(template: KubeObject, policy: Policy): Binding['spec'] {
  const { namespace, name, uid, resourceVersion } = template.metadata;
  return {
    resource: {
      apiVersion: template.apiVersion!,
      kind: template.kind!,
      ...(namespace ? { namespace } : {}),
      name: name!,
      uid,
      resourceVersion,
    },
    ...(policy.spec.placement ? { placement: structuredClone(policy.spec.placement) } : {}),
    conflictResolution: policy.spec.conflictResolution ?? 'Abort',
    preserveResourcesOnDeletion: policy.spec.preserveResourcesOnDeletion ?? false,
  };
}

function ownerReference(template: KubeObject) {
  return {
    apiVersion: template.apiVersion!,
    kind: template.kind!,
    name: template.metadata.name!,
    uid: template.metadata.uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
}

function ownedBy(binding: Binding, template: KubeObject): boolean {
  const owner = binding.metadata.ownerReferences?.find((ref) => ref.controller === true);
  return (owner?.uid ?? binding.spec.resource.uid) === template.metadata.uid;
}

/** §1.3: a template changes when anything but status, managedFields and resourceVersion does. */
export function templateChanged(event: InformerEvent): boolean {
  if (event.type !== 'MODIFIED' || !event.previous) return true;
  return !jsonEqual(comparable(event.previous), comparable(event.object));
}

function comparable(object: KubeObject): KubeObject {
  const { status: _status, ...rest } = object;
  const { managedFields: _managed, resourceVersion: _rv, ...metadata } = object.metadata;
  return { ...rest, metadata };
}

/** The templates a policy event may decide: of its selected kinds in its scope, and those it claims. */
function templatesOfPolicy(event: InformerEvent<Policy>, view: HubView): TemplateKey[] {
  const policy = event.object;
  const tier = tierOf(policy);
  const keys = new Map<string, TemplateKey>();
  const add = (template: KubeObject) =>
    keys.set(templateKeyString(templateKeyOf(template)), templateKeyOf(template));
  const namespace = tier === 'PropagationPolicy' ? policy.metadata.namespace : undefined;
  for (const selector of policy.spec?.resourceSelectors ?? []) {
    const kind = view.templates.get(selector.apiVersion, selector.kind);
    for (const template of kind?.informer.store.list(namespace) ?? []) add(template);
  }
  const id = policyIdOf(policy, tier);
  if (id)
    for (const kind of view.templates.ready())
      for (const template of kind.informer.store.byIndex(BY_CLAIM_ID, id)) add(template);
  return [...keys.values()];
}

/** Passes a policy event that can change a choice: added, deleted, a spec edit, a new permanent-id. */
function policyDecides(event: InformerEvent<Policy>): boolean {
  if (event.type !== 'MODIFIED' || !event.previous) return true;
  const tier = tierOf(event.object);
  return (
    event.previous.metadata.generation !== event.object.metadata.generation ||
    event.previous.metadata.labels?.[policyIdLabel(tier)] !==
      event.object.metadata.labels?.[policyIdLabel(tier)] ||
    Boolean(event.previous.metadata.deletionTimestamp) !== Boolean(event.object.metadata.deletionTimestamp)
  );
}

export const detectorController: ControllerDefinition<EngineContext> = {
  name,
  build(ctx: EngineContext): Controller<TemplateKey> {
    const view = hubView(ctx);
    const controller = engineController(ctx, {
      name,
      reconcile: (key: TemplateKey) => reconcile(key, view),
      toString: templateKeyString,
      fromString: templateKeyFromString,
      workers: ROUND_TRIP_WORKERS,
    });
    const policyTrigger = (tier: PolicyTier) =>
      watches(view.policies(tier), (event) => templatesOfPolicy(event, view), policyDecides);
    controller.watch(policyTrigger('PropagationPolicy'));
    controller.watch(policyTrigger('ClusterPropagationPolicy'));
    const bindingGone = (event: InformerEvent<Binding>) => {
      const key = templateKeyOfBinding(event.object);
      return event.type === 'DELETED' && key ? [key] : [];
    };
    controller.watch(watches(view.resourceBindings, bindingGone));
    controller.watch(watches(view.clusterResourceBindings, bindingGone));
    view.templates.onReady((kind) =>
      controller.watch(forObject(kind.informer, (template) => templateKeyOf(template), templateChanged)),
    );
    return controller;
  },
};

/**
 * Policy (propagation.md §1.1, §2.6, §2.7): gives each PP and CPP its permanent-id label and
 * finalizer, lets go of templates a policy edit no longer selects, and releases every claim of a
 * policy being deleted before letting it go.
 *
 * Guarantees:
 * - the permanent-id is a fresh UUID written once, with the finalizer, by an update carrying the
 *   policy's resourceVersion; it is never changed afterwards;
 * - only a change of `metadata.generation` counts as an edit, and not the bump of deletion; on
 *   an edit, each binding carrying the policy's id whose template no longer matches loses its
 *   claim keys, and so does that template (binding, template, member copies stay as they are);
 *   the detector re-applies the policy to the templates it still claims and offers it to the
 *   unclaimed ones (detector.ts triggers);
 * - on deletion, every template and binding claimed with the policy's id loses its claim keys
 *   (binding first), then the finalizer goes; nothing on a member is deleted;
 * - a policy setting both `clusterAffinity` and `clusterAffinities` gets a Warning Event
 *   `InvalidPlacement` once per generation.
 * Caveat: the generation a policy was last seen at is kept in memory; an edit made while no
 * engine runs is seen as no edit (as Karmada's detector sees it after a restart).
 */
import { randomUUID } from 'node:crypto';
import { INVALID_PLACEMENT_EVENT } from '../apis/policy/v1alpha1/policy-spec.ts';
import type { ControllerDefinition } from '../runtime/manager-context.ts';
import { type Controller, done, type Outcome } from '../runtime/controller.ts';
import { forObject } from '../runtime/triggers.ts';
import type { PolicyTier } from './policy-claim.ts';
import type { EngineContext } from './engine-context.ts';
import { engineController } from './engine-controller.ts';
import { hubView, type HubView } from './hub-view.ts';
import {
  bindingKeyOf,
  bindingKeyOfTemplate,
  policyKeyFromString,
  policyKeyString,
  templateKeyOf,
  templateKeyOfBinding,
  type PolicyKey,
} from './keys.ts';
import { removeClaim } from './metadata-writes.ts';
import { policyFinalizer, policyIdLabel, policyIdOf, selectingPolicy, type Policy } from './policy-model.ts';
import { BY_CLAIM_ID } from './resources.ts';
import { policyMatches } from './selectors.ts';

export const name = 'propagation-policy';

export const invalidPlacementNote =
  'placement sets both clusterAffinity and clusterAffinities, but only one of the two may be set; ' +
  'clusterAffinities is being ignored and clusterAffinity alone is scheduled';

export interface PolicyDeps {
  view: HubView;
  /** Generation each policy (by uid) was last seen at. */
  seen: Map<string, number>;
  /** Generation each policy (by uid) was last warned about. */
  warned: Map<string, number>;
}

export async function reconcile(key: PolicyKey, deps: PolicyDeps): Promise<Outcome> {
  const { view } = deps;
  const policy = view.policies(key.tier).store.get(key.namespace || undefined, key.name);
  if (!policy) return done();
  const uid = policy.metadata.uid!;
  if (policy.metadata.deletionTimestamp) {
    deps.seen.delete(uid);
    await release(policy, key.tier, view);
    return done();
  }
  const id = policyIdOf(policy, key.tier);
  const finalizer = policyFinalizer(key.tier);
  if (!id || !policy.metadata.finalizers?.includes(finalizer)) {
    await view.policyClient(key.tier).update({
      ...policy,
      metadata: {
        ...policy.metadata,
        labels: { ...policy.metadata.labels, [policyIdLabel(key.tier)]: id ?? randomUUID() },
        finalizers: [
          ...(policy.metadata.finalizers ?? []),
          ...(policy.metadata.finalizers?.includes(finalizer) ? [] : [finalizer]),
        ],
      },
    });
    return done();
  }
  await warnInvalidPlacement(policy, deps);
  const generation = policy.metadata.generation ?? 0;
  const previous = deps.seen.get(uid);
  deps.seen.set(uid, generation);
  if (previous !== undefined && previous !== generation) await letGoUnmatched(policy, key.tier, id, view);
  return done();
}

/** §2.6 rule 1. */
async function letGoUnmatched(policy: Policy, tier: PolicyTier, id: string, view: HubView): Promise<void> {
  const selecting = selectingPolicy(policy, tier);
  for (const kind of ['ResourceBinding', 'ClusterResourceBinding'] as const) {
    for (const binding of view.bindings(kind).byIndex(BY_CLAIM_ID, id)) {
      const templateKey = templateKeyOfBinding(binding);
      if (!templateKey) continue;
      const templates = view.templates.get(templateKey.apiVersion, templateKey.kind);
      if (!templates) continue;
      const template = templates.informer.store.get(templateKey.namespace || undefined, templateKey.name);
      if (template && policyMatches(selecting, template)) continue;
      await removeClaim(view.bindingClient(kind), binding, tier, id);
      if (template) await removeClaim(view.templateClient(templateKey)!, template, tier, id);
    }
  }
}

/** §2.7: release every claim, then the finalizer. */
async function release(policy: Policy, tier: PolicyTier, view: HubView): Promise<void> {
  const id = policyIdOf(policy, tier);
  if (id) {
    for (const kind of view.templates.ready()) {
      for (const template of kind.informer.store.byIndex(BY_CLAIM_ID, id)) {
        const bindingKey = bindingKeyOfTemplate(templateKeyOf(template));
        const binding = view
          .bindings(bindingKey.kind)
          .get(bindingKey.namespace || undefined, bindingKey.name);
        await removeClaim(view.bindingClient(bindingKey.kind), binding, tier, id);
        await removeClaim(view.templateClient(templateKeyOf(template))!, template, tier, id);
      }
    }
    for (const kind of ['ResourceBinding', 'ClusterResourceBinding'] as const)
      for (const binding of view.bindings(kind).byIndex(BY_CLAIM_ID, id))
        await removeClaim(view.bindingClient(bindingKeyOf(binding).kind), binding, tier, id);
  }
  const finalizer = policyFinalizer(tier);
  if (!policy.metadata.finalizers?.includes(finalizer)) return;
  await view.policyClient(tier).update({
    ...policy,
    metadata: { ...policy.metadata, finalizers: policy.metadata.finalizers.filter((f) => f !== finalizer) },
  });
}

async function warnInvalidPlacement(policy: Policy, deps: PolicyDeps): Promise<void> {
  const placement = policy.spec.placement;
  if (!placement?.clusterAffinity || !placement.clusterAffinities) return;
  const generation = policy.metadata.generation ?? 0;
  if (deps.warned.get(policy.metadata.uid!) === generation) return;
  deps.warned.set(policy.metadata.uid!, generation);
  await deps.view.recorder.record(policy, {
    type: 'Warning',
    reason: INVALID_PLACEMENT_EVENT,
    action: 'Schedule',
    note: invalidPlacementNote,
  });
}

export const policyController: ControllerDefinition<EngineContext> = {
  name,
  build(ctx: EngineContext): Controller<PolicyKey> {
    const view = hubView(ctx);
    const deps: PolicyDeps = { view, seen: new Map(), warned: new Map() };
    const controller = engineController(ctx, {
      name,
      reconcile: (key: PolicyKey) => reconcile(key, deps),
      toString: policyKeyString,
      fromString: policyKeyFromString,
    });
    for (const tier of ['PropagationPolicy', 'ClusterPropagationPolicy'] as const)
      controller.watch(
        forObject(view.policies(tier), (policy) => ({
          tier,
          namespace: policy.metadata.namespace ?? '',
          name: policy.metadata.name!,
        })),
      );
    return controller;
  },
};

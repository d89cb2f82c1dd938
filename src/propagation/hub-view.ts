/**
 * The hub as the engine's hub-side components read it: one shared informer per engine kind
 * (policies, bindings, Works, Clusters) with the indexes they need, and the template kinds.
 * Built once per EngineContext, so the policy, detector, scheduler, binding sync and status
 * components share every informer and the one TemplateKinds.
 *
 * Guarantees: the template kinds follow the policies' selectors and the bindings' resources from
 * the first event of each; `closeHubView` stops the template informers (the hub plane's own
 * informers stop with the plane) and the CRD watch, also when the CRDs never listed (the process
 * goes on: a lost term's engine stops this way before a fresh one is built).
 */
import type { Cluster } from '../apis/cluster/v1alpha1/cluster.ts';
import type { Work } from '../apis/work/v1alpha1/work.ts';
import type { ResourceBinding } from '../apis/work/v1alpha2/resource-binding.ts';
import type { KubeObject, ResourceClient } from '../client/types.ts';
import { eventRecorder, type EventRecorder } from '../runtime/event-recorder.ts';
import { EVENTS } from '../runtime/resource-ids.ts';
import type { ObjectStore } from '../runtime/informer-contract.ts';
import { createInformer, type RunningInformer } from '../runtime/informer.ts';
import type { EngineContext } from './engine-context.ts';
import type { BindingKind } from './keys.ts';
import type { Policy } from './policy-model.ts';
import type { PolicyTier } from './policy-claim.ts';
import {
  BY_BINDING_ID,
  BY_CLAIM_ID,
  byBindingId,
  byClaimId,
  CLUSTER_PROPAGATION_POLICIES,
  CLUSTER_RESOURCE_BINDINGS,
  CLUSTERS,
  CUSTOM_RESOURCE_DEFINITIONS,
  PROPAGATION_POLICIES,
  RESOURCE_BINDINGS,
  WORKS,
} from './resources.ts';
import { TemplateKinds } from './template-kinds.ts';

/** RB and CRB share one shape. */
export type Binding = ResourceBinding;

export interface HubView {
  propagationPolicies: RunningInformer<Policy>;
  clusterPropagationPolicies: RunningInformer<Policy>;
  resourceBindings: RunningInformer<Binding>;
  clusterResourceBindings: RunningInformer<Binding>;
  works: RunningInformer<Work>;
  clusters: RunningInformer<Cluster>;
  templates: TemplateKinds;
  recorder: EventRecorder;
  /** Stops the template informers and the CRD watch. */
  close(): Promise<void>;
  policies(tier: PolicyTier): RunningInformer<Policy>;
  policyClient(tier: PolicyTier): ResourceClient<Policy>;
  bindings(kind: BindingKind): ObjectStore<Binding>;
  bindingClient(kind: BindingKind): ResourceClient<Binding>;
  worksClient: ResourceClient<Work>;
  templateClient(template: { apiVersion: string; kind: string }): ResourceClient<KubeObject> | undefined;
}

const views = new WeakMap<EngineContext, HubView>();

export function hubView(ctx: EngineContext): HubView {
  let view = views.get(ctx);
  if (!view) views.set(ctx, (view = buildHubView(ctx)));
  return view;
}

export async function closeHubView(ctx: EngineContext): Promise<void> {
  await views.get(ctx)?.close();
  views.delete(ctx);
}

function buildHubView(ctx: EngineContext): HubView {
  const { hub } = ctx;
  const propagationPolicies = hub.informer<Policy>(PROPAGATION_POLICIES);
  const clusterPropagationPolicies = hub.informer<Policy>(CLUSTER_PROPAGATION_POLICIES);
  const bindingIndexes = { [BY_CLAIM_ID]: byClaimId };
  const resourceBindings = hub.informer<Binding>(RESOURCE_BINDINGS, { indexes: bindingIndexes });
  const clusterResourceBindings = hub.informer<Binding>(CLUSTER_RESOURCE_BINDINGS, {
    indexes: bindingIndexes,
  });
  const works = hub.informer<Work>(WORKS, { indexes: { [BY_BINDING_ID]: byBindingId } });
  const clusters = hub.informer<Cluster>(CLUSTERS);
  // Outside the plane's informers, so that a hub refusing to list CRDs (RBAC) delays no start;
  // an unserved kind is then resolved again only at the next start.
  const crds = createInformer({
    plane: hub.name,
    client: hub.client(CUSTOM_RESOURCE_DEFINITIONS),
    clock: ctx.clock,
    log: ctx.log,
  });
  crds.start();
  const recorder = eventRecorder({
    client: hub.client(EVENTS),
    controller: 'propagation',
    instance: 'netpresence-propagation',
    clock: ctx.clock,
    log: ctx.log,
  });
  const templates = new TemplateKinds({ hub, kinds: ctx.kinds, clock: ctx.clock, log: ctx.log, recorder });
  const sourceKey = (prefix: string, object: KubeObject) =>
    `${prefix}/${object.metadata.namespace ?? ''}/${object.metadata.name}`;
  propagationPolicies.subscribe((event) => templates.observe(sourceKey('pp', event.object), event, true));
  clusterPropagationPolicies.subscribe((event) =>
    templates.observe(sourceKey('cpp', event.object), event, true),
  );
  resourceBindings.subscribe((event) => templates.observe(sourceKey('rb', event.object), event, false));
  clusterResourceBindings.subscribe((event) =>
    templates.observe(sourceKey('crb', event.object), event, false),
  );
  let crdsListed = false;
  // An engine stopped before its first CRD list (a term lost while the hub was unreachable, or a
  // hub refusing the list) rejects synced(): handled, or it ends the process (issue 16).
  crds.synced().then(
    () => (crdsListed = true),
    () => undefined,
  );
  crds.subscribe(() => {
    if (crdsListed) templates.discoveryChanged();
  });

  return {
    propagationPolicies,
    clusterPropagationPolicies,
    resourceBindings,
    clusterResourceBindings,
    works,
    clusters,
    templates,
    recorder,
    async close() {
      await crds.stop();
      await templates.stop();
    },
    policies: (tier) => (tier === 'PropagationPolicy' ? propagationPolicies : clusterPropagationPolicies),
    policyClient: (tier) =>
      hub.client<Policy>(tier === 'PropagationPolicy' ? PROPAGATION_POLICIES : CLUSTER_PROPAGATION_POLICIES),
    bindings: (kind) => (kind === 'ResourceBinding' ? resourceBindings.store : clusterResourceBindings.store),
    bindingClient: (kind) =>
      hub.client<Binding>(kind === 'ResourceBinding' ? RESOURCE_BINDINGS : CLUSTER_RESOURCE_BINDINGS),
    worksClient: hub.client<Work>(WORKS),
    templateClient(template) {
      const kind = templates.get(template.apiVersion, template.kind);
      return kind ? hub.client<KubeObject>(kind.informer.id) : undefined;
    },
  };
}

/**
 * Installing CRDs into a plane through @kubernetes/client-node, for the fleet and for tests.
 *
 * Guarantees: `installCrds` returns once every given CRD exists with exactly the given spec and
 * is Established, so its kinds are served; an existing CRD keeps its metadata (finalizers,
 * labels) and has its spec replaced, retrying on a write conflict. It throws the API's error,
 * or, when a CRD is not Established within `timeoutMs`, an Error naming it.
 * CRDs go through the generic custom-object client, which sends them as written: the typed
 * apiextensions client would drop the `x-kubernetes-*` keys and `default`s it does not model.
 */
import * as k8s from '@kubernetes/client-node';
import type { CustomResourceDefinition } from './crds.ts';

export interface InstallOptions {
  /** How long to wait for each CRD to become Established (default 30 s). */
  timeoutMs?: number;
  pollMs?: number;
}

const CRD_RESOURCE = { group: 'apiextensions.k8s.io', version: 'v1', plural: 'customresourcedefinitions' };
const CONFLICT_RETRIES = 5;

export async function installCrds(
  kubeConfig: k8s.KubeConfig,
  crds: readonly CustomResourceDefinition[],
  options: InstallOptions = {},
): Promise<void> {
  const api = kubeConfig.makeApiClient(k8s.CustomObjectsApi);
  for (const crd of crds) await createOrReplace(api, crd);
  await Promise.all(crds.map((crd) => established(api, crd.metadata.name, options)));
}

async function createOrReplace(api: k8s.CustomObjectsApi, crd: CustomResourceDefinition): Promise<void> {
  const name = crd.metadata.name;
  for (let attempt = 1; ; attempt++) {
    try {
      await api.createClusterCustomObject({ ...CRD_RESOURCE, body: crd });
      return;
    } catch (err) {
      if (statusCode(err) !== 409) throw err;
    }
    const current = (await api.getClusterCustomObject({ ...CRD_RESOURCE, name })) as { spec: unknown };
    try {
      await api.replaceClusterCustomObject({ ...CRD_RESOURCE, name, body: { ...current, spec: crd.spec } });
      return;
    } catch (err) {
      if (statusCode(err) !== 409 || attempt >= CONFLICT_RETRIES) throw err;
    }
  }
}

async function established(api: k8s.CustomObjectsApi, name: string, options: InstallOptions): Promise<void> {
  const deadline = performance.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    const crd = (await api.getClusterCustomObject({ ...CRD_RESOURCE, name })) as {
      status?: { conditions?: { type: string; status: string }[] };
    };
    if (crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return;
    if (performance.now() > deadline)
      throw new Error(`CustomResourceDefinition ${name} was not Established in time`);
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 50));
  }
}

function statusCode(err: unknown): number | undefined {
  return err instanceof k8s.ApiException ? err.code : undefined;
}

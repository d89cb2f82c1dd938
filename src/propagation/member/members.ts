/**
 * Member access (propagation.md §1.2): the two MemberDirectory implementations.
 *
 * - `embeddedMembers`: inside the embedded fleet, Cluster X is the fleet's plane named X, reached
 *   with the engine's own identity; `spec.apiEndpoint` and `spec.secretRef` are not read.
 * - `standaloneMembers`: a hub `Secret` named by `spec.secretRef` holds either a `kubeconfig`
 *   (its current context is used, `spec.apiEndpoint` ignored) or a bearer `token` (with an
 *   optional `caBundle`, else the system roots) for `spec.apiEndpoint`, honouring
 *   `spec.insecureSkipTLSVerification` and `spec.proxyURL`.
 *
 * Guarantees: `plane(cluster)` answers the same PlaneAccess (sharing its informers) for as long
 * as the cluster's access is unchanged; when it changes — a new Secret `resourceVersion`, a new
 * endpoint, TLS or proxy setting — the old plane's informers stop and a new plane is answered.
 * When the member cannot be reached, `plane` throws an Error whose message is what the Work's
 * `Applied=False` says: `cluster X: no plane named X in the fleet`, or one naming the Cluster,
 * the Secret and the missing key. The Secret is read from the hub's informer store, never
 * fetched. The KubeConfig is built in memory (`loadFromOptions`/`loadFromString`), never from a
 * file.
 */
import { KubeConfig } from '@kubernetes/client-node';
import type { Cluster } from '../../apis/cluster/v1alpha1/cluster.ts';
import type { KubeObject } from '../../client/types.ts';
import { StaticPlane, type PlaneAccess } from '../../runtime/manager-context.ts';
import type { Clock } from '../../runtime/clock.ts';
import type { Logger } from '../../runtime/logging.ts';
import type { MemberDirectory } from '../engine-context.ts';
import { SECRETS } from './secret-trigger.ts';

export const memberErrors = {
  noPlane: (cluster: string) => `cluster ${cluster}: no plane named ${cluster} in the fleet`,
  noSecretRef: (cluster: string) =>
    `cluster ${cluster}: spec.secretRef is not set; a standalone engine reaches a member through a Secret holding a kubeconfig or a token`,
  secretMissing: (cluster: string, secret: string) =>
    `cluster ${cluster}: Secret ${secret} named by spec.secretRef does not exist; create it with a kubeconfig key, or a token key (and caBundle)`,
  noCredentials: (cluster: string, secret: string) =>
    `cluster ${cluster}: Secret ${secret} has neither a kubeconfig key nor a token key; add token (with spec.apiEndpoint) or kubeconfig`,
  noEndpoint: (cluster: string, secret: string) =>
    `cluster ${cluster}: Secret ${secret} holds a token but spec.apiEndpoint is not set; set the member's API endpoint`,
  badKubeconfig: (cluster: string, secret: string, cause: string) =>
    `cluster ${cluster}: the kubeconfig key of Secret ${secret} cannot be used: ${cause}`,
};

export interface EmbeddedMembersOptions {
  kubeConfigFor(plane: string): KubeConfig | undefined;
  clock: Clock;
  log: Logger;
}

export interface StandaloneMembersOptions {
  hub: StaticPlane;
  clock: Clock;
  log: Logger;
}

interface HeldPlane {
  /** What the access was built from; a different fingerprint means new access. */
  fingerprint: string;
  plane: StaticPlane;
}

/** Planes by cluster, replaced when their fingerprint changes. */
class PlaneCache {
  private readonly planes = new Map<string, HeldPlane>();

  constructor(
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  /** The plane held for `cluster` (built from `fingerprint`, when one is given). */
  held(cluster: string, fingerprint?: string): PlaneAccess | undefined {
    const held = this.planes.get(cluster);
    return fingerprint === undefined || held?.fingerprint === fingerprint ? held?.plane : undefined;
  }

  async get(cluster: string, fingerprint: string, kubeConfig: () => KubeConfig): Promise<PlaneAccess> {
    const held = this.planes.get(cluster);
    if (held?.fingerprint === fingerprint) return held.plane;
    const plane = new StaticPlane(cluster, kubeConfig(), this.clock, this.log);
    this.planes.set(cluster, { fingerprint, plane });
    if (held) {
      this.log.info({ cluster }, 'access to the member changed; reconnecting');
      await held.plane.close();
    }
    return plane;
  }

  async forget(cluster: string): Promise<void> {
    const held = this.planes.get(cluster);
    this.planes.delete(cluster);
    await held?.plane.close();
  }

  async close(): Promise<void> {
    const planes = [...this.planes.values()];
    this.planes.clear();
    await Promise.all(planes.map((held) => held.plane.close()));
  }
}

export function embeddedMembers(options: EmbeddedMembersOptions): MemberDirectory {
  const cache = new PlaneCache(options.clock, options.log);
  return {
    async plane(cluster) {
      const name = cluster.metadata.name!;
      // A fleet plane never moves: once reached, it is the cluster's until forgotten.
      const held = cache.held(name);
      if (held) return held;
      const kubeConfig = options.kubeConfigFor(name);
      if (!kubeConfig) throw new Error(memberErrors.noPlane(name));
      return cache.get(name, 'fleet', () => kubeConfig);
    },
    forget: (name) => cache.forget(name),
    close: () => cache.close(),
  };
}

interface SecretObject extends KubeObject {
  data?: Record<string, string>;
}

export function standaloneMembers(options: StandaloneMembersOptions): MemberDirectory {
  const cache = new PlaneCache(options.clock, options.log);
  const secrets = options.hub.informer<SecretObject>(SECRETS);
  return {
    async plane(cluster: Cluster) {
      const name = cluster.metadata.name!;
      const ref = cluster.spec?.secretRef;
      if (!ref) throw new Error(memberErrors.noSecretRef(name));
      const secretName = `${ref.namespace}/${ref.name}`;
      const secret = secrets.store.get(ref.namespace, ref.name);
      if (!secret) throw new Error(memberErrors.secretMissing(name, secretName));
      const { apiEndpoint, insecureSkipTLSVerification, proxyURL } = cluster.spec ?? {};
      const fingerprint = JSON.stringify([
        secret.metadata.uid,
        secret.metadata.resourceVersion,
        apiEndpoint,
        insecureSkipTLSVerification,
        proxyURL,
      ]);
      const held = cache.held(name, fingerprint);
      return held ?? cache.get(name, fingerprint, accessOf(cluster, secret, secretName));
    },
    forget: (name) => cache.forget(name),
    close: () => cache.close(),
  };
}

/** How to build the KubeConfig of `cluster` from `secret`; throws when it cannot be. */
export function accessOf(cluster: Cluster, secret: SecretObject, secretName: string): () => KubeConfig {
  const name = cluster.metadata.name!;
  const data = secret.data ?? {};
  if (data.kubeconfig) {
    const kubeConfig = new KubeConfig();
    try {
      kubeConfig.loadFromString(Buffer.from(data.kubeconfig, 'base64').toString('utf8'));
    } catch (err) {
      throw new Error(memberErrors.badKubeconfig(name, secretName, (err as Error).message), { cause: err });
    }
    if (!kubeConfig.getCurrentCluster())
      throw new Error(memberErrors.badKubeconfig(name, secretName, 'its current context names no cluster'));
    return () => kubeConfig;
  }
  if (!data.token) throw new Error(memberErrors.noCredentials(name, secretName));
  const server = cluster.spec?.apiEndpoint;
  if (!server) throw new Error(memberErrors.noEndpoint(name, secretName));
  const token = Buffer.from(data.token, 'base64').toString('utf8').trim();
  return () => {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: [
        {
          name,
          server,
          skipTLSVerify: cluster.spec?.insecureSkipTLSVerification === true,
          ...(data.caBundle && { caData: data.caBundle }),
          ...(cluster.spec?.proxyURL && { proxyUrl: cluster.spec.proxyURL }),
        },
      ],
      users: [{ name, token }],
      contexts: [{ name, cluster: name, user: name }],
      currentContext: name,
    });
    return kubeConfig;
  };
}

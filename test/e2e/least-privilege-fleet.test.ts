/**
 * RBAC sufficient and minimal, proven by running under it (issue 18): the fleet split apart as on
 * real clusters (test/support/split-fleet.ts) — `netpresence up --stand-ins-only` serves the
 * platform, the hub, project-alpha's plane and cells `cell-a` and `cell-b` with an audit log;
 * config/crd and config/rbac are applied with kubectl; `netpresence manager`, `propagator` and a
 * `cell` per cell run as child processes on tokens from `kubectl create token` only — drives
 * S104, S110, S106, S108 and S111 (fixture F) to green on one fleet, each Given reached again where
 * the previous scenario tore it down. Then, per identity, every permission its roles grant was
 * used, or is listed below with the controller step that needs it in a case this run does not
 * reach; and nothing was refused or used without a grant.
 *
 * The scenarios' "within 2 seconds" is the embedded fleet's bound; here each process is a cold
 * child of its own on a shared machine, and the point is what RBAC lets through, so each Then is
 * given the Given's bound.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { networkBindingMessages } from '../../src/apis/networking/v1alpha/network-binding.ts';
import { eventually } from '../support/apiserver.ts';
import {
  allWithin,
  ALPHA,
  C,
  conditionOf,
  fixtureFConfig,
  fixtureOn,
  get,
  gone,
  GIVEN_WITHIN,
  isTrue,
  KINDS,
  present,
  s104Outcome,
  s106Outcome,
  scenario104,
  scenario111,
  SUBNET,
  type Any,
  type FleetFixture,
} from '../support/fleet.ts';
import { auditEvents, compare, granted, rendered, roleGranted, usedKey } from '../support/rbac-audit.ts';
import {
  CELLS_NAMESPACE,
  SPLIT_IDENTITIES,
  startSplitFleet,
  SYSTEM_NAMESPACE,
  type SplitFleet,
} from '../support/split-fleet.ts';

const CELLS = ['cell-a', 'cell-b'];
const CONSUMER_CONTEXT = 'project-project-alpha-as-consumer';
const CONSUMER_USER = 'consumer-project-alpha';
/** See the module comment: a Then's bound on processes split apart. */
const THEN_WITHIN = GIVEN_WITHIN;

/**
 * Granted, and not used by this run, each with the controller step that needs it. Keys are
 * `plane kind|verb|group|resource|subresource|ns-or-cluster`.
 */
const UNREACHED: Record<string, Record<string, string>> = {
  manager: {
    'hub|create|events.k8s.io|events||ns':
      'location publisher: a ForeignPolicyClaim Warning on a hub object another policy claims',
    'platform|create|events.k8s.io|events||ns':
      'location publisher: a Warning on a Location it cannot publish (MissingCityCode, S112)',
    'hub|create||namespaces||cluster':
      "replicator: creates a project namespace's hub namespace (the fleet's stand-in creates it first)",
    'hub|patch||namespaces||cluster': "replicator: restores a hub namespace's upstream labels",
    'hub|patch|networking.datumapis.com|subnets||ns':
      "replicator: a project Subnet's change onto its hub copy",
    'hub|patch|networking.datumapis.com|servinglocations||cluster':
      "location publisher: a Location's changed topology onto its ServingLocation",
    'hub|delete|networking.datumapis.com|servinglocations||cluster':
      'location publisher: a Location no cell serves any more loses its ServingLocation',
    'hub|patch|policy.karmada.io|clusterpropagationpolicies||cluster':
      "location publisher: a location's policy rewritten when its selectors change",
    'hub|delete|policy.karmada.io|clusterpropagationpolicies||cluster':
      "location publisher: a location's policy removed with its ServingLocation",
    'project|get|ipam.miloapis.com|ipclaims||ns':
      'ipam access: a create that finds the IPClaim already there (409) re-reads it',
    'project|get|networking.datumapis.com|subnets||ns':
      'subnet publication: a create that finds the Subnet already there (409) re-reads it',
    'project|get|networking.datumapis.com|networkcontexts||ns':
      'replicator: re-reads a context from the server after losing a write race (onStale: reread)',
  },
  propagator: {
    'hub|create|events.k8s.io|events||ns':
      'policy and template kinds: a Warning on a policy (both affinities set; KindNotServed)',
    'hub|get|work.karmada.io|resourcebindings||ns':
      'scheduler: re-reads a binding after losing a write race (409) to the status controller',
    'hub|get|work.karmada.io|clusterresourcebindings||cluster':
      'scheduler: re-reads a binding after losing a write race (409) to the status controller',
    'hub|delete|work.karmada.io|clusterresourcebindings||cluster':
      'detector: a cluster-scoped template (a ServingLocation) deleted takes its binding along',
    'hub|delete||namespaces||cluster':
      "cluster: a member's execution namespace karmada-es-<cluster> goes with it",
    'hub|update|policy.karmada.io|propagationpolicies||ns':
      'policy: claims for a namespaced PropagationPolicy (netpresence writes none; a user may)',
    'cell|update|networking.datumapis.com|subnets||ns':
      'execution: a changed Subnet template replaces its copy',
    'cell|update|networking.datumapis.com|servinglocations||cluster':
      'execution: a changed ServingLocation template replaces its copy',
    'cell|update||namespaces||cluster': "execution: a hub namespace's changed labels replace its copy's",
    'cell|delete||namespaces||cluster': 'execution: a hub namespace removed from the hub leaves the cell',
  },
  cell: {
    'cell|create|events.k8s.io|events||ns': 'allocation events: a Warning when IPAM refuses an allocation',
    'cell|get|networking.datumapis.com|networkinterfaceclaims||ns':
      'claim controller: re-reads a claim before reporting an allocation finding',
  },
  consumer: {
    'hub|get|networking.datumapis.com|networkbindings||ns': 'a consumer reads its binding (kubectl get)',
    'hub|list|networking.datumapis.com|networkbindings||ns': "a consumer lists its namespace's bindings",
    'hub|watch|networking.datumapis.com|networkbindings||ns': 'a consumer waits for Ready (kubectl wait)',
    'hub|update|networking.datumapis.com|networkbindings||ns': 'a consumer edits a binding (kubectl edit)',
    'hub|patch|networking.datumapis.com|networkbindings||ns': 'a consumer edits a binding (kubectl patch)',
    'hub|get||namespaces||cluster': 'kubectl -n ns-<uid>: a consumer reads the namespace it works in',
  },
  cellAbroad: {
    'project|update|ipam.miloapis.com|ipclaims||ns':
      'issue 13: a cell updates its own IPClaim (ownership enforced by CellRestriction)',
    'project|create|ipam.miloapis.com|ipallocations||ns':
      'issue 13: an IPAllocation a cell creates for its own claim',
    'project|update|ipam.miloapis.com|ipallocations||ns': 'issue 13: a cell updates its own IPAllocation',
    'project|get|ipam.miloapis.com|ipclasses||cluster':
      'claim bind: a claim naming IP classes reads each for its family',
  },
};

/** Cluster-scoped resources: the CRDs' (config/crd) and the built-ins the roles name. */
const CLUSTER_SCOPED = new Set([
  'namespaces',
  'customresourcedefinitions',
  'clusterroles',
  'clusterrolebindings',
  ...['crd/platform', 'crd/hub', 'crd/propagation', 'crd/project', 'crd/cell'].flatMap((base) =>
    rendered(base)
      .filter((crd) => crd.spec.scope === 'Cluster')
      .map((crd) => crd.spec.names.plural as string),
  ),
]);
const namespaced = (resource: string) => !CLUSTER_SCOPED.has(resource);

const planeKind = (plane: string) =>
  plane === 'root'
    ? 'platform'
    : plane.startsWith('project-')
      ? 'project'
      : CELLS.includes(plane)
        ? 'cell'
        : plane;

const serviceAccount = (name: string) => (s: Any) =>
  s.kind === 'ServiceAccount' && s.name === name && s.namespace === SYSTEM_NAMESPACE;
const cellsGroup = (s: Any) => s.kind === 'Group' && s.name === `system:serviceaccounts:${CELLS_NAMESPACE}`;

/** Per identity: the users it acts as, and what its roles grant, plane by plane. */
const IDENTITIES = {
  manager: {
    users: [SPLIT_IDENTITIES.manager],
    grants: () => [
      granted('platform', 'rbac/platform', serviceAccount('netpresence-manager'), namespaced),
      granted('hub', 'rbac/hub', serviceAccount('netpresence-manager'), namespaced),
      granted('project', 'rbac/project', serviceAccount('netpresence-manager'), namespaced),
    ],
  },
  propagator: {
    users: [SPLIT_IDENTITIES.propagator],
    grants: () => [
      granted('hub', 'rbac/hub', serviceAccount('netpresence-propagator'), namespaced),
      granted('cell', 'rbac/cell', serviceAccount('netpresence-propagator'), namespaced),
    ],
  },
  cell: {
    users: [SPLIT_IDENTITIES.cell],
    grants: () => [granted('cell', 'rbac/cell', serviceAccount('netpresence-cell'), namespaced)],
  },
  consumer: {
    users: [CONSUMER_USER],
    // Bound by the hub-namespace provisioner in each of the project's hub namespaces.
    grants: () => [roleGranted('hub', 'rbac/hub', 'netpresence-consumer', namespaced)],
  },
  cellAbroad: {
    users: CELLS.map(SPLIT_IDENTITIES.cellAbroad),
    grants: () => [
      granted('hub', 'rbac/hub', cellsGroup, namespaced),
      granted('project', 'rbac/project', cellsGroup, namespaced),
    ],
  },
};

describe('the fleet split apart, under config/rbac only', () => {
  let dir: string;
  let split: SplitFleet;
  let f: FleetFixture;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'netpresence-split-'));
    split = await startSplitFleet({
      config: fixtureFConfig({ cells: [{ name: 'cell-b' }] }),
      cells: CELLS,
      projects: ['project-alpha'],
      dir,
    });
    // The propagator, not the fleet, tells each Cluster's readiness from its probe.
    for (const cell of CELLS)
      await eventually(
        async () =>
          isTrue(await split.fleet.client<Any>('hub', KINDS.clusters).get(cell), 'Ready') ? true : undefined,
        60_000,
        `Cluster ${cell} Ready`,
      );
    // The project's consumer declares its bindings, as the platform's RBAC lets it.
    f = await fixtureOn(split.fleet, CELLS, CONSUMER_CONTEXT);
  });

  after(async () => {
    await split?.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('S104 from binding to interface', async () => {
    await f.createBinding('web');
    await f.createClaim('cell-a', 'web-0-eth0');
    await allWithin(THEN_WITHIN, s104Outcome(f));
  });

  it('S110 a network edit reaches existing interfaces', async () => {
    const before = {
      context: await get(f, ALPHA, 'networkContexts', C, 'default'),
      hub: await get(f, 'hub', 'networkContexts', C, f.H),
      cell: await get(f, 'cell-a', 'networkContexts', C, f.H),
      iface: await get(f, 'cell-a', 'interfaces', 'web-0-eth0', f.H),
    };
    await f.client(ALPHA, KINDS.networks).patchMerge('vpc', 'default', { spec: { mtu: 8856 } });
    const newer = (copy: Any, held: Any) =>
      copy?.spec.mtu === 8856 && copy.spec.networkGeneration > held.spec.networkGeneration;
    await allWithin(THEN_WITHIN, {
      'the project-plane C reads mtu 8856 with a larger networkGeneration': async () =>
        newer(await get(f, ALPHA, 'networkContexts', C, 'default'), before.context),
      'its hub copy does': async () => newer(await get(f, 'hub', 'networkContexts', C, f.H), before.hub),
      'its cell copy does': async () => newer(await get(f, 'cell-a', 'networkContexts', C, f.H), before.cell),
      'the interface reads mtu 8856': async () =>
        (await get(f, 'cell-a', 'interfaces', 'web-0-eth0', f.H))?.spec.mtu === 8856,
    });
    const iface = await get(f, 'cell-a', 'interfaces', 'web-0-eth0', f.H);
    assert.deepEqual(iface.spec.addresses, before.iface.spec.addresses, 'addresses are unchanged');
    // Back to fixture F's mtu for the scenarios after this one.
    await f.client(ALPHA, KINDS.networks).patchMerge('vpc', 'default', { spec: { mtu: 1460 } });
    await allWithin(THEN_WITHIN, {
      'the interface reads mtu 1460 again': async () =>
        (await get(f, 'cell-a', 'interfaces', 'web-0-eth0', f.H))?.spec.mtu === 1460,
    });
  });

  it('S106 teardown, consumers first', async () => {
    await f.client('cell-a', KINDS.claims).delete('web-0-eth0', f.H);
    await f.client(CONSUMER_CONTEXT, KINDS.networkBindings).delete('web', f.H);
    await allWithin(THEN_WITHIN, s106Outcome(f));
  });

  it('S108 deleting a Network refuses its bindings and holds its context while addresses remain', async () => {
    await scenario104(f);
    const network = await get(f, ALPHA, 'networks', 'vpc', 'default');
    await f.client(ALPHA, KINDS.networks).delete('vpc', 'default');
    const bindingReady = async () => conditionOf(await get(f, 'hub', 'networkBindings', 'web', f.H), 'Ready');
    await allWithin(THEN_WITHIN, {
      'web is NetworkNotFound "… is being deleted"': async () => {
        const ready = await bindingReady();
        return (
          ready?.reason === 'NetworkNotFound' &&
          ready.message === networkBindingMessages.networkDeleting('vpc', 'default', 'project-alpha')
        );
      },
      'the project-plane C is terminating with RangeOccupied': async () => {
        const context = await get(f, ALPHA, 'networkContexts', C, 'default');
        const allocated = conditionOf(context, 'IPAMAllocated');
        return (
          context?.metadata.deletionTimestamp !== undefined &&
          allocated?.status === 'False' &&
          allocated.reason === 'RangeOccupied'
        );
      },
      'the hub copy of C is gone': () => gone(f, 'hub', 'networkContexts', C, f.H),
      'the cell copy of C is held': async () =>
        (await get(f, 'cell-a', 'networkContexts', C, f.H))?.metadata.deletionTimestamp !== undefined,
      'the Subnet and its copies remain': async () =>
        (await present(f, ALPHA, 'subnets', SUBNET, 'default')) &&
        (await present(f, 'hub', 'subnets', SUBNET, f.H)) &&
        (await present(f, 'cell-a', 'subnets', SUBNET, f.H)),
    });
    await f.client('cell-a', KINDS.claims).delete('web-0-eth0', f.H);
    await allWithin(THEN_WITHIN, {
      'C is gone': () => gone(f, ALPHA, 'networkContexts', C, 'default'),
      'the Subnet is gone': () => gone(f, ALPHA, 'subnets', SUBNET, 'default'),
      'both IPClaims are gone': async () =>
        (await f.client(ALPHA, KINDS.ipClaims).list({ namespace: 'default' })).items.length === 0,
      'the provisioned pools are gone': async () =>
        (await gone(f, ALPHA, 'ipPools', 'datum-subnet-v6-vpc-us-central-1')) &&
        (await gone(f, ALPHA, 'ipPools', 'datum-network-v6-vpc')),
      'vpc is gone': () => gone(f, ALPHA, 'networks', 'vpc', 'default'),
      'the cell copies are gone': async () =>
        (await gone(f, 'cell-a', 'networkContexts', C, f.H)) &&
        (await gone(f, 'cell-a', 'subnets', SUBNET, f.H)),
      'web is NetworkNotFound "Network "vpc" was not found …"': async () => {
        const ready = await bindingReady();
        return (
          ready?.reason === 'NetworkNotFound' &&
          ready.message === networkBindingMessages.networkNotFound('vpc', 'default', 'project-alpha')
        );
      },
    });
    // Fixture F again for the next scenario: vpc as seeded, and no binding yet.
    await f.client(CONSUMER_CONTEXT, KINDS.networkBindings).delete('web', f.H);
    await allWithin(THEN_WITHIN, { 'web is gone': () => gone(f, 'hub', 'networkBindings', 'web', f.H) });
    await f.client(ALPHA, KINDS.networks).create({
      metadata: { name: 'vpc', namespace: 'default' },
      spec: network.spec,
    });
  });

  it('S111 a location whose cells change', async () => {
    await scenario104(f);
    await scenario111(f, THEN_WITHIN);
  });

  it('each process exits 0 on SIGTERM', async () => {
    for (const name of split.processes.keys()) assert.equal(await split.kill(name), 0, name);
  });

  it('each identity was refused nothing and used every permission it was granted', async () => {
    const events = await auditEvents(split.auditLog);
    const problems: Record<string, unknown> = {};
    for (const [identity, { users, grants }] of Object.entries(IDENTITIES)) {
      const own = events.filter((e) => users.includes(e.user.username ?? ''));
      assert.ok(own.length > 0, `${identity} made requests`);
      const refused = own.filter((e) => e.responseStatus.code === 401 || e.responseStatus.code === 403);
      const used = new Set(
        own.filter((e) => e.objectRef && e.responseStatus.code !== 403).map((e) => usedKey(e, planeKind)),
      );
      const { unused, notGranted } = compare(
        new Set(grants().flatMap((keys) => [...keys])),
        used,
        UNREACHED[identity],
      );
      if (refused.length || unused.length || notGranted.length)
        problems[identity] = {
          refused: [...new Set(refused.map((e) => `${e.verb} ${e.requestURI} → ${e.responseStatus.code}`))],
          unused,
          notGranted,
        };
    }
    assert.deepEqual(
      problems,
      {},
      `per identity: refused, granted but unused, used without a grant:\n${JSON.stringify(problems, null, 1)}`,
    );
  });
});

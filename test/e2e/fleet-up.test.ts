/**
 * `netpresence up` as a user runs it (a child process): the default fleet, the platform
 * stand-ins (project planes from Projects, hub namespaces, Cluster readiness), the narrow
 * identities behind the `-as-consumer` / `-as-cell` contexts, a restart on the same data
 * directory, and a clean stop on SIGINT and SIGTERM.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { KubeConfig } from '@kubernetes/client-node';
import { parse as parseYaml } from 'yaml';
import { UPSTREAM_CLUSTER_NAME_LABEL, UPSTREAM_NAMESPACE_LABEL } from '../../src/apis/common/upstream.ts';
import type { Cluster } from '../../src/apis/cluster/v1alpha1/cluster.ts';
import type { Network } from '../../src/apis/networking/v1alpha/network.ts';
import type { Project } from '../../src/apis/resourcemanager/v1alpha1/project.ts';
import { ForbiddenError, UnauthorizedError } from '../../src/client/errors.ts';
import { resourceClient } from '../../src/client/resource-client.ts';
import { NAMESPACES } from '../../src/runtime/resource-ids.ts';
import { eventually } from '../support/apiserver.ts';
import { startChildFleet, type ChildFleet } from '../support/fleet.ts';
import { CLUSTERS, NETWORK_BINDINGS } from '../support/hub-fixtures.ts';
import {
  IP_CLASSES,
  IP_POOLS,
  LOCATION_BINDINGS,
  LOCATIONS,
  NETWORKS,
  PROJECTS,
} from '../support/project-fixtures.ts';

const WITHIN = 5000;

function contextNames(kubeconfig: string): string[] {
  return (parseYaml(kubeconfig) as { contexts: { name: string }[] }).contexts.map((c) => c.name).sort();
}

function binding(name: string, namespace: string) {
  return {
    metadata: { name, namespace },
    spec: {
      network: { name: 'default' },
      location: { name: 'us-central-1' },
      consumer: { apiGroup: 'compute.datumapis.com', kind: 'WorkloadDeployment', name },
    },
  };
}

/** The identity of context `as`, sent to the plane of context `to`. */
function retarget(fleet: ChildFleet, as: string, to: string): KubeConfig {
  const server = fleet.kubeConfig(to).getCurrentCluster()!.server;
  const kubeConfig = fleet.kubeConfig(as);
  kubeConfig.loadFromOptions({
    clusters: kubeConfig.getClusters().map((cluster) => ({ ...cluster, server })),
    users: kubeConfig.getUsers(),
    contexts: kubeConfig.getContexts(),
    currentContext: kubeConfig.getCurrentContext(),
  });
  return kubeConfig;
}

const isReady = (conditions?: { type: string; status: string }[]) =>
  conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

describe('netpresence up', () => {
  const fleets: ChildFleet[] = [];
  after(async () => {
    for (const fleet of fleets) await fleet.dispose();
  });

  it('brings up the default fleet: project demo with Network default, two served locations and a spare cell', async () => {
    const fleet = await startChildFleet();
    fleets.push(fleet);
    assert.match(
      fleet.stdout(),
      /^netpresence fleet is up at https:\/\/127\.0\.0\.1:\d+ \(ready in [\d.]+ s\)$/m,
    );
    assert.match(fleet.stdout(), new RegExp(`kubeconfig: ${fleet.kubeconfigPath}`));
    assert.deepEqual(contextNames(await readFile(fleet.kubeconfigPath, 'utf8')), [
      'cell-eu-west-1',
      'cell-eu-west-1-as-cell',
      'cell-spare',
      'cell-spare-as-cell',
      'cell-us-central-1',
      'cell-us-central-1-as-cell',
      'hub',
      'hub-as-cell-eu-west-1',
      'hub-as-cell-spare',
      'hub-as-cell-us-central-1',
      'platform',
      'platform-as-cell-eu-west-1',
      'platform-as-cell-spare',
      'platform-as-cell-us-central-1',
      'project-demo',
      'project-demo-as-consumer',
    ]);

    const project = await fleet.client<Project>('platform', PROJECTS).get('demo');
    assert.ok(isReady(project?.status?.conditions), 'project demo is Ready');
    const network = await fleet.client<Network>('project-demo', NETWORKS).get('default', 'default');
    assert.deepEqual(network?.spec.ipFamilies, ['IPv6', 'IPv4']);
    const locations = await fleet.client('platform', LOCATIONS).list();
    assert.deepEqual(locations.items.map((l) => l.metadata.name).sort(), ['eu-west-1', 'us-central-1']);

    const clusters = await eventually(
      async () => {
        const list = (await fleet.client<Cluster>('hub', CLUSTERS).list()).items;
        return list.length === 3 && list.every((c) => isReady(c.status?.conditions)) ? list : undefined;
      },
      WITHIN,
      'three Ready clusters',
    );
    const served = Object.fromEntries(
      clusters.map((c) => [c.metadata.name, c.metadata.labels?.['topology.datum.net/location']]),
    );
    assert.deepEqual(served, {
      'cell-eu-west-1': 'eu-west-1',
      'cell-spare': undefined,
      'cell-us-central-1': 'us-central-1',
    });

    const bindings = await eventually(
      async () => {
        const list = (await fleet.client('project-demo', LOCATION_BINDINGS).list()).items;
        return list.length === 2 ? list : undefined;
      },
      WITHIN,
      'a LocationBinding per location',
    );
    assert.deepEqual(bindings.map((b) => b.metadata.name).sort(), ['eu-west-1', 'us-central-1']);
    assert.equal(await fleet.stop(), 0);
  });

  it('provisions a project plane for a new Project, marks it Ready, gives its namespaces hub namespaces, and removes the plane with the Project', async () => {
    const fleet = await startChildFleet({ config: 'projects: []\nlocations: []\ncells: []\n' });
    fleets.push(fleet);
    const projects = fleet.client<Project>('platform', PROJECTS);
    await projects.create({
      metadata: { name: 'beta' },
      spec: { ownerRef: { kind: 'Organization', name: 'acme' } },
    });
    await eventually(
      async () => isReady((await projects.get('beta'))?.status?.conditions) || undefined,
      WITHIN,
      'beta Ready',
    );
    await eventually(
      async () =>
        contextNames(await readFile(fleet.kubeconfigPath, 'utf8')).includes('project-beta') || undefined,
      WITHIN,
      'the kubeconfig to name project-beta',
    );
    const classes = await fleet.client('project-beta', IP_CLASSES).list();
    const pools = await fleet.client('project-beta', IP_POOLS).list();
    assert.equal(classes.items.length, 5, 'the five default IPClasses');
    assert.equal(pools.items.length, 3, 'the three default root IPPools');

    const hubNamespace = await fleet.hubNamespace('beta');
    const held = await eventually(
      () => fleet.client('hub', NAMESPACES).get(hubNamespace),
      WITHIN,
      hubNamespace,
    );
    assert.equal(held.metadata.labels?.[UPSTREAM_CLUSTER_NAME_LABEL], 'cluster-beta');
    assert.equal(held.metadata.labels?.[UPSTREAM_NAMESPACE_LABEL], 'default');

    await fleet.client('project-beta', NAMESPACES).create({ metadata: { name: 'team-a' } });
    const teamA = await fleet.client('project-beta', NAMESPACES).get('team-a');
    const teamHub = `ns-${teamA!.metadata.uid}`;
    await eventually(
      () => fleet.client('hub', NAMESPACES).get(teamHub),
      WITHIN,
      'the hub namespace of team-a',
    );

    await projects.delete('beta');
    await eventually(
      async () =>
        contextNames(await readFile(fleet.kubeconfigPath, 'utf8')).includes('project-beta')
          ? undefined
          : true,
      WITHIN,
      'project-beta to leave the kubeconfig',
    );
    await eventually(
      async () =>
        (await fleet.client('hub', NAMESPACES).get(hubNamespace))?.metadata.deletionTimestamp === undefined &&
        (await fleet.client('hub', NAMESPACES).get(hubNamespace))
          ? undefined
          : true,
      WITHIN,
      'the hub namespace of beta to go',
    );
    assert.equal(await fleet.stop(), 0);
  });

  it("lets a project's consumer manage bindings only in its own hub namespaces, and a cell only its own plane", async () => {
    const config = [
      'projects:',
      '  - name: demo',
      '    networks: [{ name: default }]',
      '  - name: other',
      'locations: []',
      'cells:',
      '  - name: cell-one',
      '  - name: cell-two',
    ].join('\n');
    const fleet = await startChildFleet({ config });
    fleets.push(fleet);
    const demoNamespace = await fleet.hubNamespace('demo');
    const otherNamespace = await fleet.hubNamespace('other');
    await eventually(() => fleet.client('hub', NAMESPACES).get(otherNamespace), WITHIN, otherNamespace);
    const asConsumer = fleet.client('project-demo-as-consumer', NETWORK_BINDINGS);
    const created = await eventually(
      () => asConsumer.create(binding('web', demoNamespace)).catch(() => undefined),
      WITHIN,
      'the consumer to create a binding in its hub namespace',
    );
    assert.equal(created.metadata.namespace, demoNamespace);
    await assert.rejects(asConsumer.create(binding('web', otherNamespace)), ForbiddenError);
    await assert.rejects(fleet.client('project-demo-as-consumer', NAMESPACES).list(), ForbiddenError);

    const kubectl = await fleet.kubectl.run([
      '--context',
      'project-demo-as-consumer',
      'get',
      'networkbindings',
    ]);
    assert.equal(kubectl.code, 0, kubectl.stderr);
    assert.match(kubectl.stdout, /^web\s/m, 'the context defaults to the hub namespace of demo/default');

    assert.ok((await fleet.client('cell-one-as-cell', NAMESPACES).list()).items.length >= 2);
    // A cell plane's token is one that cell issued (identities.ts): unknown anywhere else; on
    // the hub a cell acts as its own account, which may publish interfaces and nothing else.
    await assert.rejects(
      fleet.client('hub-as-cell-one', NAMESPACES).list(),
      ForbiddenError,
      "cell-one's account on the hub",
    );
    await assert.rejects(
      resourceClient(retarget(fleet, 'cell-one-as-cell', 'cell-two'), NAMESPACES).list(),
      UnauthorizedError,
      "cell-one's identity in cell-two",
    );
    await assert.rejects(
      resourceClient(retarget(fleet, 'cell-one-as-cell', 'hub'), NAMESPACES).list(),
      UnauthorizedError,
      "cell-one's identity on the hub",
    );
    assert.equal(await fleet.stop(), 0);
  });

  it('resumes the same fleet when restarted on the same data directory', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'netpresence-fleet-data-'));
    try {
      const first = await startChildFleet({ dataDir });
      fleets.push(first);
      const hubNamespace = await first.hubNamespace('demo');
      await first.client('platform', LOCATIONS).delete('eu-west-1');
      await first.client('project-demo', NETWORKS).create({
        metadata: { name: 'extra', namespace: 'default' },
        spec: { ipam: { mode: 'Auto' } },
      });
      assert.equal(await first.stop(), 0);

      const second = await startChildFleet({ dataDir, dir: first.dir });
      fleets.push(second);
      assert.equal(await second.hubNamespace('demo'), hubNamespace, 'the same project plane');
      assert.ok(
        await second.client('project-demo', NETWORKS).get('extra', 'default'),
        'a user object is kept',
      );
      assert.equal(
        await second.client('platform', LOCATIONS).get('eu-west-1'),
        undefined,
        'the seed does not run again',
      );
      const project = await second.client<Project>('platform', PROJECTS).get('demo');
      assert.ok(isReady(project?.status?.conditions));
      assert.equal(await second.stop(), 0);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('stops cleanly on SIGINT', async () => {
    const fleet = await startChildFleet({ config: 'projects: []\nlocations: []\ncells: []\n' });
    fleets.push(fleet);
    const exited = new Promise<number | null>((resolve) => fleet.child.on('exit', (code) => resolve(code)));
    fleet.child.kill('SIGINT');
    assert.equal(await exited, 0);
  });

  it('refuses a config naming a cell outside the cell- convention, naming the field', async () => {
    await assert.rejects(
      startChildFleet({ config: 'cells:\n  - name: edge\n', timeoutMs: 20_000 }),
      /cells\[0\]\.name "edge" must start with "cell-"/,
    );
  });
});

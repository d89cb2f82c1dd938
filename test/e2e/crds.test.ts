/**
 * The generated CRDs in the embedded API server: every one installs and is served in the planes
 * apis.md §0.1 names, every file in examples/ applies with the real kubectl (and re-applies
 * unchanged), and `kubectl get` prints each kind's printer columns.
 */
import * as k8s from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { defaultIpClasses, defaultRootPools } from '../../src/apis/ipam/v1alpha1/default-set.ts';
import type { CustomResourceDefinition } from '../../src/apis/crds.ts';
import { installCrds } from '../../src/apis/install-crds.ts';
import { workName } from '../../src/apis/work/v1alpha1/work.ts';
import { bindingName } from '../../src/apis/work/v1alpha2/binding-spec.ts';
import { startTestServer, type TestServer } from '../support/apiserver.ts';
import {
  CELL,
  crdsByPlane,
  HUB,
  installPlaneCrds,
  PLANES,
  PLATFORM,
  PROJECT,
} from '../support/crd-planes.ts';
import { headerOf, rowsOf } from '../support/kubectl-table.ts';

const EXAMPLES = 'examples';
/** examples/<folder> → the plane it is applied to, in apply order. */
const EXAMPLE_PLANES: [folder: string, plane: string][] = [
  ['platform', PLATFORM],
  ['project', PROJECT],
  ['hub', HUB],
  ['cell', CELL],
];

const H = 'ns-0b6f1d2e-8c1a-4d2b-9b7e-3f5a6c7d8e9f';

/** An object of every kind no example holds, so that `kubectl get` has a row to print. */
const FIXTURES: Record<string, object[]> = {
  [PROJECT]: [
    context('default'),
    interfaceCopy('default'),
    subnet('default'),
    {
      apiVersion: 'ipam.miloapis.com/v1alpha1',
      kind: 'IPClaim',
      metadata: { name: 'web-0-f-ipv6', namespace: 'default' },
      spec: { ipFamily: 'IPv6' },
    },
    {
      apiVersion: 'ipam.miloapis.com/v1alpha1',
      kind: 'IPAllocation',
      metadata: { name: 'web-0-f-ipv4', namespace: 'default' },
      spec: { poolRef: { name: 'datum-endpoint-v4-root' }, cidr: '10.128.0.1/32', ipFamily: 'IPv4' },
    },
  ],
  [HUB]: [
    context(H),
    interfaceCopy(H),
    subnet(H),
    servingLocation(),
    {
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'ClusterPropagationPolicy',
      metadata: { name: 'location-us-central-1' },
      spec: {
        conflictResolution: 'Overwrite',
        resourceSelectors: [
          { apiVersion: 'networking.datumapis.com/v1alpha', kind: 'ServingLocation', name: 'us-central-1' },
        ],
        placement: {
          clusterAffinity: {
            labelSelector: { matchLabels: { 'topology.datum.net/location': 'us-central-1' } },
          },
        },
      },
    },
    {
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name: 'contexts', namespace: H },
      spec: {
        resourceSelectors: [{ apiVersion: 'networking.datumapis.com/v1alpha', kind: 'NetworkContext' }],
      },
    },
    {
      apiVersion: 'work.karmada.io/v1alpha2',
      kind: 'ResourceBinding',
      metadata: { name: bindingName('NetworkContext', 'vpc-us-central-1'), namespace: H },
      spec: {
        resource: {
          apiVersion: 'networking.datumapis.com/v1alpha',
          kind: 'NetworkContext',
          namespace: H,
          name: 'vpc-us-central-1',
        },
        clusters: [{ name: 'cell-a' }],
      },
    },
    {
      apiVersion: 'work.karmada.io/v1alpha2',
      kind: 'ClusterResourceBinding',
      metadata: { name: bindingName('ServingLocation', 'us-central-1') },
      spec: {
        resource: {
          apiVersion: 'networking.datumapis.com/v1alpha',
          kind: 'ServingLocation',
          name: 'us-central-1',
        },
      },
    },
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'karmada-es-cell-a' } },
    {
      apiVersion: 'work.karmada.io/v1alpha1',
      kind: 'Work',
      metadata: { name: workName('ServingLocation', 'us-central-1'), namespace: 'karmada-es-cell-a' },
      spec: { workload: { manifests: [servingLocation()] } },
    },
  ],
  [CELL]: [
    context(H),
    subnet(H),
    servingLocation(),
    {
      apiVersion: 'networking.datumapis.com/v1alpha',
      kind: 'NetworkInterface',
      metadata: { name: 'web-0', namespace: H },
      spec: {
        network: { name: 'vpc' },
        claimRef: { name: 'web-0' },
        addresses: [{ family: 'IPv6', address: 'fd20::1:0:0/96', gateway: 'fd20::1', primary: true }],
      },
    },
  ],
};

/** A copy of interface web-0 of cell-a (controllers.md §13): no claimRef. */
function interfaceCopy(namespace: string) {
  return {
    apiVersion: 'networking.datumapis.com/v1alpha',
    kind: 'NetworkInterface',
    metadata: { name: 'web-0.cell-a', namespace },
    spec: {
      network: { name: 'vpc' },
      addresses: [{ family: 'IPv6', address: 'fd20::1:0:0/96', gateway: 'fd20::1', primary: true }],
    },
  };
}

function context(namespace: string) {
  return {
    apiVersion: 'networking.datumapis.com/v1alpha',
    kind: 'NetworkContext',
    metadata: { name: 'vpc-us-central-1', namespace },
    spec: { network: { name: 'vpc' }, location: { name: 'us-central-1' }, ipFamilies: ['IPv6'], mtu: 1460 },
  };
}

function subnet(namespace: string) {
  return {
    apiVersion: 'networking.datumapis.com/v1alpha',
    kind: 'Subnet',
    metadata: { name: 'vpc-us-central-1-ipv6', namespace },
    spec: {
      subnetClass: 'private',
      networkContext: { name: 'vpc-us-central-1' },
      location: { name: 'us-central-1' },
      ipFamily: 'IPv6',
      startAddress: 'fd20::',
      prefixLength: 64,
    },
  };
}

function servingLocation() {
  return {
    apiVersion: 'networking.datumapis.com/v1alpha',
    kind: 'ServingLocation',
    metadata: { name: 'us-central-1' },
    spec: { topology: { 'topology.datum.net/city-code': 'DFW', 'topology.datum.net/region': 'us-central1' } },
  };
}

/** The header `kubectl get -o wide` prints for a kind. */
function expectedHeader(crd: CustomResourceDefinition): string[] {
  const namespaced = crd.spec.scope === 'Namespaced' ? ['NAMESPACE'] : [];
  const columns = crd.spec.versions[0].additionalPrinterColumns.map((column) => column.name.toUpperCase());
  return [...namespaced, 'NAME', ...columns];
}

describe('generated CRDs in the embedded API server', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer(PLANES);
    await installPlaneCrds(t);
  });
  after(async () => t.stop());

  it('serves every kind, with its short names, in the planes that install it', async () => {
    for (const plane of PLANES) {
      const printed = await t.kubectl.ok(['--context', plane, 'api-resources', '-o', 'wide']);
      const served = new Map(
        rowsOf(printed).map((row) => [`${row.NAME}.${row.APIVERSION.split('/')[0]}`, row]),
      );
      for (const crd of crdsByPlane[plane]) {
        const row = served.get(crd.metadata.name);
        assert.ok(row, `${crd.metadata.name} is not served in ${plane}`);
        assert.equal(row.KIND, crd.spec.names.kind);
        assert.equal(row.NAMESPACED, String(crd.spec.scope === 'Namespaced'));
        assert.equal(row.SHORTNAMES, (crd.spec.names.shortNames ?? []).join(','));
      }
    }
  });

  it('installs again over itself, leaving every CRD established', async () => {
    await Promise.all(PLANES.map((plane) => installCrds(t.kubeConfig(plane), crdsByPlane[plane])));
    const crds = await t.kubectl.ok(['--context', HUB, 'get', 'crds', '-o', 'name']);
    assert.equal(crds.trim().split('\n').length, crdsByPlane[HUB].length);
  });

  it('applies every file in examples/ with kubectl, and re-applies it unchanged', async () => {
    for (const [folder, plane] of EXAMPLE_PLANES) {
      for (const file of (await readdir(join(EXAMPLES, folder))).sort()) {
        const path = join(EXAMPLES, folder, file);
        const created = await t.kubectl.ok(['--context', plane, 'apply', '-f', path]);
        assert.match(created, /created/, `${path}: ${created}`);
        const again = await t.kubectl.ok(['--context', plane, 'apply', '-f', path]);
        assert.doesNotMatch(again, /configured|created/, `${path} changed on re-apply: ${again}`);
      }
    }
  });

  it('stores the project example as the default IPAM set, defaults included', async () => {
    const custom = t.kubeConfig(PROJECT).makeApiClient(k8s.CustomObjectsApi);
    const list = async (plural: string) =>
      (
        (await custom.listClusterCustomObject({
          group: 'ipam.miloapis.com',
          version: 'v1alpha1',
          plural,
        })) as {
          items: { metadata: { name: string }; spec: unknown }[];
        }
      ).items;
    const byName = (objects: { metadata: { name?: string }; spec: unknown }[]) =>
      Object.fromEntries(objects.map((o) => [o.metadata.name, o.spec]));
    assert.deepEqual(byName(await list('ipclasses')), byName(defaultIpClasses));
    assert.deepEqual(byName(await list('ippools')), byName(defaultRootPools));
  });

  it('prints every kind with its printer columns in kubectl get -o wide', async () => {
    for (const plane of PLANES) {
      const fixtures = (FIXTURES[plane] ?? []).map((object) => JSON.stringify(object)).join('\n');
      if (fixtures) await t.kubectl.ok(['--context', plane, 'apply', '-f', '-'], fixtures);
      for (const crd of crdsByPlane[plane]) {
        const resource = crd.metadata.name;
        const all = crd.spec.scope === 'Namespaced' ? ['-A'] : [];
        const printed = await t.kubectl.ok(['--context', plane, 'get', resource, ...all, '-o', 'wide']);
        assert.deepEqual(headerOf(printed), expectedHeader(crd), `${resource} in ${plane}`);
        assert.ok(rowsOf(printed).length > 0, `no ${resource} in ${plane}`);
      }
    }
  });

  it('fills printer columns from the stored objects', async () => {
    const networks = rowsOf(
      await t.kubectl.ok(['--context', PROJECT, 'get', 'networks', '-n', 'default', '-o', 'wide']),
    );
    assert.deepEqual(
      networks.map((row) => [row.NAME, row.READY, row.REASON, row.IPFAMILIES, row.IPAM, row.MTU]),
      [['vpc', 'Unknown', 'Pending', '["IPv6"]', 'Auto', '1460']],
    );
    const locations = rowsOf(await t.kubectl.ok(['--context', PLATFORM, 'get', 'locations']));
    assert.deepEqual(
      locations.map((row) => [row.NAME, row.CLASS, row.CITY]),
      [['us-central-1', 'datum-managed', 'DFW']],
    );
    const serving = rowsOf(await t.kubectl.ok(['--context', CELL, 'get', 'servinglocations']));
    assert.deepEqual(
      serving.map((row) => [row.NAME, row.CITY, row.REGION]),
      [['us-central-1', 'DFW', 'us-central1']],
    );
    const pools = rowsOf(await t.kubectl.ok(['--context', PROJECT, 'get', 'ippools']));
    assert.deepEqual(
      pools.map((row) => [row.NAME, row.CIDR, row.CLASS]),
      [
        ['datum-endpoint-v4-root', '10.128.0.0/16', 'datum-endpoint-v4'],
        ['datum-network-v6-root', 'fd20::/20', 'datum-network-v6'],
        ['datum-public-v4-root', '203.0.113.0/24', 'datum-public-v4'],
      ],
    );
    const policies = rowsOf(await t.kubectl.ok(['--context', HUB, 'get', 'cpp']));
    assert.deepEqual(
      policies.map((row) => [row.NAME, row['CONFLICT-RESOLUTION'], row.PRIORITY]),
      [['location-us-central-1', 'Overwrite', '0']],
    );
    const works = rowsOf(await t.kubectl.ok(['--context', HUB, 'get', 'works', '-n', 'karmada-es-cell-a']));
    assert.deepEqual(
      works.map((row) => [row.NAME, row['WORKLOAD-KIND'], row.APPLIED]),
      [[workName('ServingLocation', 'us-central-1'), 'ServingLocation', '']],
    );
  });
});

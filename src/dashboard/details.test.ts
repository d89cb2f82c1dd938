import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../client/types.ts';
import { Store } from '../runtime/store.ts';
import { pairDetail, warningEvents } from './details.ts';
import type { DashboardSources } from './sources.ts';

function storeOf(objects: object[]): Store {
  const store = new Store();
  store.replace(objects as KubeObject[]);
  return store;
}

const HUB_NS = 'ns-1234';
const route = {
  'meta.datumapis.com/upstream-cluster-name': 'cluster-demo',
  'meta.datumapis.com/upstream-namespace': 'default',
};
const warning = (name: string, namespace: string | undefined, time: string, regarding: object) => ({
  metadata: { name, ...(namespace && { namespace }) },
  type: 'Warning',
  reason: `R-${name}`,
  note: `note ${name}`,
  eventTime: time,
  regarding,
});
const copyLabels = (network: string, location: string, cell: string, claim?: string) => ({
  'networking.datumapis.com/network-interface-projection': 'true',
  'networking.datumapis.com/source-cell': cell,
  'networking.datumapis.com/source-namespace': HUB_NS,
  'networking.datumapis.com/network': network,
  'networking.datumapis.com/location': location,
  ...(claim && { 'networking.datumapis.com/held-by': claim }),
});

/** The stores of a fleet with project demo, its hub namespace, one cell, and a Warning in each plane. */
function sources(): DashboardSources {
  const project = {
    networks: storeOf([{ metadata: { name: 'default', namespace: 'default' } }]),
    contexts: storeOf([
      {
        metadata: { name: 'default-eu', namespace: 'default' },
        spec: { network: { name: 'default' }, location: { name: 'eu-west-1' } },
      },
    ]),
    subnets: storeOf([]),
    interfaces: storeOf([
      {
        metadata: {
          name: 'web-0.cell-eu',
          namespace: 'default',
          labels: copyLabels('default', 'eu-west-1', 'cell-eu', 'web-0'),
        },
        spec: {
          network: { name: 'default' },
          addresses: [{ family: 'IPv6', address: 'fd20::5/64', gateway: 'fd20::1' }],
        },
        status: {
          phase: 'Bound',
          conditions: [{ type: 'Programmed', status: 'True', reason: 'Programmed', message: '' }],
        },
      },
      // Another network's copy, and one from another hub namespace: not the pair's.
      {
        metadata: {
          name: 'x.cell-eu',
          namespace: 'default',
          labels: copyLabels('other', 'eu-west-1', 'cell-eu'),
        },
        spec: {},
      },
      {
        metadata: {
          name: 'y.cell-eu',
          namespace: 'default',
          labels: {
            ...copyLabels('default', 'eu-west-1', 'cell-eu'),
            'networking.datumapis.com/source-namespace': 'ns-other',
          },
        },
        spec: {},
      },
    ]),
    events: storeOf([
      warning('p1', 'default', '2026-12-03T10:00:03Z', {
        kind: 'Network',
        namespace: 'default',
        name: 'default',
      }),
      warning('p2', 'default', '2026-12-03T10:00:04Z', {
        kind: 'NetworkContext',
        namespace: 'default',
        name: 'default-eu',
      }),
      { ...warning('normal', 'default', '2026-12-03T10:00:09Z', {}), type: 'Normal' },
    ]),
  };
  const cell = {
    servingLocations: storeOf([{ metadata: { name: 'eu-west-1' } }]),
    contexts: storeOf([]),
    subnets: storeOf([]),
    claims: storeOf([]),
    interfaces: storeOf([]),
    events: storeOf([
      warning('c1', HUB_NS, '2026-12-03T10:00:02Z', {
        kind: 'NetworkInterface',
        namespace: HUB_NS,
        name: 'i',
      }),
    ]),
  };
  return {
    platform: {
      locations: storeOf([]),
      projects: storeOf([]),
      events: storeOf([
        warning('l1', undefined, '2026-12-03T10:00:01Z', { kind: 'Location', name: 'nowhere' }),
      ]),
    },
    hub: {
      namespaces: storeOf([{ metadata: { name: HUB_NS, labels: route } }]),
      bindings: storeOf([
        {
          metadata: { name: 'web', namespace: HUB_NS },
          spec: { network: { name: 'default' }, location: { name: 'eu-west-1' } },
        },
      ]),
      contexts: storeOf([]),
      subnets: storeOf([]),
      policies: storeOf([]),
      clusters: storeOf([]),
      events: storeOf([
        warning('h1', HUB_NS, '2026-12-03T10:00:05Z', {
          kind: 'NetworkBinding',
          namespace: HUB_NS,
          name: 'web',
        }),
      ]),
    },
    projectNames: () => ['demo'],
    project: (p: string) => (p === 'demo' ? project : undefined),
    cellNames: () => ['cell-eu'],
    cell: (c: string) => (c === 'cell-eu' ? cell : undefined),
  } as unknown as DashboardSources;
}

describe('dashboard details', () => {
  it("lists the Warnings of every plane, project planes too, newest first, each linked to its object's view", () => {
    assert.deepEqual(
      warningEvents(sources()).map((e) => [e.plane, e.reason, e.href]),
      [
        ['hub', 'R-h1', `#/pair/${HUB_NS}/default/eu-west-1`],
        ['project-demo', 'R-p2', `#/pair/${HUB_NS}/default/eu-west-1`],
        ['project-demo', 'R-p1', '#/?project=demo&network=default'],
        ['cell-eu', 'R-c1', '#/cell/cell-eu'],
        ['platform', 'R-l1', '#/?location=nowhere'],
      ],
    );
  });

  it("shows the pair's bindings and the project's copies of its interfaces, only those of the pair", () => {
    const detail = pairDetail(sources(), { hubNamespace: HUB_NS, network: 'default', location: 'eu-west-1' });
    assert.deepEqual(detail.bindings, ['web']);
    assert.deepEqual([detail.project, detail.namespace], ['demo', 'default']);
    assert.deepEqual(detail.copies, [
      {
        project: 'demo',
        namespace: 'default',
        name: 'web-0.cell-eu',
        cell: 'cell-eu',
        heldBy: 'web-0',
        phase: 'Bound',
        addresses: [{ family: 'IPv6', address: 'fd20::5/64', gateway: 'fd20::1' }],
        conditions: {
          Allocated: undefined,
          Prepared: undefined,
          Programmed: { status: 'True', reason: 'Programmed', message: '' },
        },
      },
    ]);
  });
});

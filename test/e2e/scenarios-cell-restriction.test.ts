/**
 * CellRestriction on a running fleet (issue 13, finding 3; scenarios.md §16, S132): a cell's
 * identity writes only the IPAM objects labelled with its own cell, through the real HTTP API.
 *
 * Scenario 131's end state (issue 16's claim controller names IPClaims `<claim>.<cell>-f-<family>`)
 * is made here by each cell's own identity creating those IPClaims, as its claim controller does;
 * admission stamps the cell label, whichever controller version wrote them.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { Agent } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { CELL_LABEL } from '../../src/apis/ipam/v1alpha1/ip-claim.ts';
import { networkLocationScope } from '../../src/apis/ipam/v1alpha1/scope.ts';
import { call, type PlaneTarget } from '../support/child-server.ts';
import { startChildFleet, startFixtureF, type ChildFleet, type FleetFixture } from '../support/fleet.ts';

const IPAM = '/apis/ipam.miloapis.com/v1alpha1';
const claimsIn = (namespace: string) => `${IPAM}/namespaces/${namespace}/ipclaims`;

/** A raw-request target: the server of context `plane`, as the user of context `identity`. */
async function targetAs(fleet: ChildFleet, plane: string, identity: string): Promise<PlaneTarget> {
  const config = parseYaml(await readFile(fleet.kubeconfigPath, 'utf8'));
  const context = (name: string) => config.contexts.find((c: any) => c.name === name).context;
  const cluster = config.clusters.find((c: any) => c.name === context(plane).cluster).cluster;
  const user = config.users.find((u: any) => u.name === context(identity).user).user;
  return {
    base: cluster.server,
    token: user.token,
    ca: Buffer.from(cluster['certificate-authority-data'], 'base64').toString(),
    agent: new Agent({ keepAlive: true }),
  };
}

function ipClaim(name: string, network: string, location: string, labels?: Record<string, string>) {
  return {
    apiVersion: 'ipam.miloapis.com/v1alpha1',
    kind: 'IPClaim',
    metadata: { name, ...(labels ? { labels } : {}) },
    spec: { ipFamily: 'IPv6', scope: networkLocationScope(network, location) },
  };
}

/** The status of a refused request, after checking it is 403 Forbidden. */
function assertForbidden(res: { status: number; body: string }, what: string): any {
  assert.equal(res.status, 403, `${what}: ${res.body}`);
  const status = JSON.parse(res.body);
  assert.equal(status.reason, 'Forbidden', what);
  return status;
}

describe('S132 a cell touches only its own addresses', () => {
  let f: FleetFixture;
  let admin: PlaneTarget;
  let cellA: PlaneTarget;
  let cellB: PlaneTarget;

  before(async () => {
    f = await startFixtureF({ cells: [{ name: 'cell-b' }] });
    admin = await targetAs(f.fleet, 'project-project-alpha', 'project-project-alpha');
    cellA = await targetAs(f.fleet, 'project-project-alpha', 'platform-as-cell-a');
    cellB = await targetAs(f.fleet, 'project-project-alpha', 'platform-as-cell-b');
    // Scenario 131's IPClaims, each written by its own cell.
    for (const [target, cell] of [
      [cellA, 'cell-a'],
      [cellB, 'cell-b'],
    ] as const) {
      const res = await call(
        target,
        'POST',
        claimsIn('default'),
        ipClaim(`api-0.${cell}-f-ipv6`, 'vpc', 'us-central-1'),
      );
      assert.equal(res.status, 201, res.body);
      assert.equal(JSON.parse(res.body).metadata.labels[CELL_LABEL], cell, 'admission stamped the cell');
    }
  });
  after(async () => {
    for (const target of [admin, cellA, cellB]) target?.agent.destroy();
    await f?.dispose();
  });

  it("S132 refuses cell-b's writes to cell-a's IPClaim, a claim labelled for cell-a, and IPPools and IPClasses", async () => {
    const A = `${claimsIn('default')}/api-0.cell-a-f-ipv6`;
    const before = await call(admin, 'GET', A);
    assert.equal(before.status, 200);
    const status = assertForbidden(await call(cellB, 'DELETE', A), 'delete');
    assert.match(
      status.message,
      /User "system:serviceaccount:netpresence-cells:cell-b" cannot delete IPClaims not labelled networking.datumapis.com\/cell=cell-b \(this one belongs to cell cell-a\)/,
    );
    assertForbidden(
      await call(cellB, 'PATCH', A, { metadata: { labels: { x: 'y' } } }, 'application/merge-patch+json'),
      'patch',
    );
    assertForbidden(
      await call(
        cellB,
        'PATCH',
        A,
        { metadata: { labels: { [CELL_LABEL]: 'cell-b' } } },
        'application/merge-patch+json',
      ),
      'relabel',
    );
    assertForbidden(
      await call(
        cellB,
        'POST',
        claimsIn('default'),
        ipClaim('api-1.cell-b-f-ipv6', 'vpc', 'us-central-1', { [CELL_LABEL]: 'cell-a' }),
      ),
      'create labelled cell-a',
    );
    const pools = JSON.parse((await call(admin, 'GET', `${IPAM}/ippools`)).body).items;
    const classes = JSON.parse((await call(admin, 'GET', `${IPAM}/ipclasses`)).body).items;
    assert.ok(pools.length > 0 && classes.length > 0);
    const pool = pools[0].metadata.name;
    const ipClass = classes[0].metadata.name;
    for (const [method, path, body, type] of [
      ['DELETE', `${IPAM}/ippools/${pool}`, undefined, undefined],
      [
        'PATCH',
        `${IPAM}/ippools/${pool}`,
        { metadata: { labels: { x: 'y' } } },
        'application/merge-patch+json',
      ],
      ['POST', `${IPAM}/ippools`, { metadata: { name: 'stolen' }, spec: pools[0].spec }, undefined],
      ['DELETE', `${IPAM}/ipclasses/${ipClass}`, undefined, undefined],
      [
        'PATCH',
        `${IPAM}/ipclasses/${ipClass}`,
        { metadata: { labels: { x: 'y' } } },
        'application/merge-patch+json',
      ],
    ] as const) {
      assertForbidden(await call(cellB, method, path, body, type), `${method} ${path}`);
    }
    // Nothing changed: the claim, the pools and the classes are as they were.
    assert.equal((await call(admin, 'GET', A)).body, before.body);
    assert.deepEqual(JSON.parse((await call(admin, 'GET', `${IPAM}/ippools`)).body).items, pools);
    assert.deepEqual(JSON.parse((await call(admin, 'GET', `${IPAM}/ipclasses`)).body).items, classes);
    // cell-b still manages its own, and its allocation carries its label (read as the admin: a
    // cell's config/rbac role never reads allocations).
    const B = `${claimsIn('default')}/api-0.cell-b-f-ipv6`;
    const allocation = JSON.parse(
      (await call(admin, 'GET', `${IPAM}/namespaces/default/ipallocations/api-0.cell-b-f-ipv6`)).body,
    );
    assert.equal(allocation.metadata.labels[CELL_LABEL], 'cell-b');
    assert.equal((await call(cellB, 'DELETE', B)).status, 200);
  });
});

describe('the default fleet', () => {
  let fleet: ChildFleet;
  before(async () => {
    fleet = await startChildFleet({ timeoutMs: 120_000 });
  });
  after(async () => fleet?.dispose());

  it("refuses cell-spare's identity deleting cell-us-central-1's IPClaim 403, and the claim stays", async () => {
    const owner = await targetAs(fleet, 'project-demo', 'platform-as-cell-us-central-1');
    const spare = await targetAs(fleet, 'project-demo', 'platform-as-cell-spare');
    try {
      const name = 'web-0.cell-us-central-1-f-ipv6';
      const created = await call(
        owner,
        'POST',
        claimsIn('default'),
        ipClaim(name, 'default', 'us-central-1'),
      );
      assert.equal(created.status, 201, created.body);
      const status = assertForbidden(await call(spare, 'DELETE', `${claimsIn('default')}/${name}`), 'delete');
      assert.match(
        status.message,
        /ipclaims.ipam.miloapis.com "web-0.cell-us-central-1-f-ipv6" is forbidden: User "system:serviceaccount:netpresence-cells:cell-spare"/,
      );
      const still = await call(owner, 'GET', `${claimsIn('default')}/${name}`);
      assert.equal(still.status, 200);
      assert.equal(
        JSON.parse(still.body).metadata.resourceVersion,
        JSON.parse(created.body).metadata.resourceVersion,
      );
    } finally {
      owner.agent.destroy();
      spare.agent.destroy();
    }
  });
});

/**
 * RBAC sufficient and minimal for `netpresence cell`, proven by running under it: the cell's
 * bases of config/rbac are applied with kubectl to the cell plane and the project plane, tokens
 * are minted with `kubectl create token`, and the cell runs as a child process whose kubeconfigs
 * hold only those tokens. It binds a claim with an address from the project's IPAM and releases
 * it again; then the audit log shows, per identity, that nothing it did was refused, and that
 * every permission its roles grant was used — or is listed below with the controller step that
 * needs it in a case this run does not reach.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support/apiserver.ts';
import { bound, CELL_A, createClaim, startFixtureK, type CellScenario } from '../support/cell-fixtures.ts';
import { Kubectl } from '../support/kubectl.ts';
import { startCellProcess, type RunningProcess } from '../support/process.ts';
import { auditEvents, compare, CONFIG, granted, usedKey } from '../support/rbac-audit.ts';

const PROJECT_PLANE = 'project-project-alpha';
const CELL_USER = 'system:serviceaccount:netpresence-system:netpresence-cell';
const IPAM_USER = `system:serviceaccount:netpresence-cells:${CELL_A}`;

/** Granted but not used in this run, each with the step that needs it. */
const UNREACHED: Record<string, string> = {
  'project-project-alpha|update|ipam.miloapis.com|ipclaims||ns':
    'issue 13: a cell updates its own IPClaim (ownership enforced by admission)',
  'project-project-alpha|create|ipam.miloapis.com|ipallocations||ns':
    'issue 13: an IPAllocation a cell creates for its own claim',
  'project-project-alpha|update|ipam.miloapis.com|ipallocations||ns':
    'issue 13: a cell updates its own IPAllocation',
  'project-project-alpha|get|ipam.miloapis.com|ipclasses||cluster':
    'claim bind: a claim naming IP classes reads each for its family',
  'cell-a|get|networking.datumapis.com|networkinterfaceclaims||ns':
    'claim controller: re-reads a claim before reporting an allocation finding',
  'cell-a|create|events.k8s.io|events||ns': 'allocation events: a Warning when IPAM refuses an allocation',
};

type Obj = Record<string, any>;

const CLUSTER_SCOPED = new Set(['namespaces', 'servinglocations', 'ipclasses', 'ippools']);

describe('netpresence cell under config/rbac only', () => {
  let k: CellScenario;
  let dir: string;
  let auditLog: string;
  let cell: RunningProcess;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'netpresence-least-'));
    auditLog = join(dir, 'audit.jsonl');
    k = await startFixtureK({ controllers: false, auditLog });
    const adminPath = join(dir, 'admin.kubeconfig');
    await writeFile(adminPath, k.s.server.kubeconfig(), { mode: 0o600 });
    const admin = new Kubectl(adminPath, join(dir, 'cache'), dir);
    await admin.ok(['--context', CELL_A, 'apply', '-k', join(CONFIG, 'rbac/cell')]);
    await admin.ok(['--context', PROJECT_PLANE, 'apply', '-k', join(CONFIG, 'rbac/project')]);
    await admin.ok([
      '--context',
      PROJECT_PLANE,
      'create',
      'serviceaccount',
      CELL_A,
      '-n',
      'netpresence-cells',
    ]);
    const token = async (plane: string, name: string, namespace: string) =>
      (
        await admin.ok(['--context', plane, 'create', 'token', name, '-n', namespace, '--duration', '1h'])
      ).trim();
    const cellKubeconfig = join(dir, 'cell.kubeconfig');
    const ipamKubeconfig = join(dir, 'ipam.kubeconfig');
    await writeFile(
      cellKubeconfig,
      k.s.server.kubeconfig(await token(CELL_A, 'netpresence-cell', 'netpresence-system'), [CELL_A]),
      { mode: 0o600 },
    );
    // The IPAM base is the platform's URL; the token is the cell's own in the project plane under it.
    await writeFile(
      ipamKubeconfig,
      k.s.server.kubeconfig(await token(PROJECT_PLANE, CELL_A, 'netpresence-cells'), ['root']),
      { mode: 0o600 },
    );
    cell = await startCellProcess({ kubeconfig: cellKubeconfig, ipamKubeconfig, identity: 'least' });
  });

  after(async () => {
    if (cell.child.exitCode === null) cell.child.kill('SIGKILL');
    await k.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('binds a claim with an address from the project IPAM and releases it', async () => {
    await createClaim(k, 'web-0-eth0');
    const claim = await bound(k, 'web-0-eth0', k.H, 30_000);
    assert.equal(claim.status?.addresses?.[0].address, 'fd20::1:0:0/96');
    assert.ok(
      (await k.ipClaims.list({ namespace: 'default' })).items.length > 2,
      'the interface has IPClaims',
    );
    await k.claims.delete('web-0-eth0', k.H);
    await eventually(
      async () => ((await k.interfaces.list({ namespace: k.H })).items.length === 0 ? true : undefined),
      30_000,
      'the interface to go',
    );
    const fixtureClaims = ['network-vpc', 'networkcontext-vpc-us-central-1'];
    await eventually(
      async () => {
        const names = (await k.ipClaims.list({ namespace: 'default' })).items.map((c) => c.metadata.name!);
        return names.sort().join() === fixtureClaims.join() ? true : undefined;
      },
      30_000,
      'the interface IPClaims to go',
    );
    cell.child.kill('SIGTERM');
    assert.equal(await cell.exited, 0);
  });

  it('was refused nothing and used every permission it was granted', async () => {
    const events = (await auditEvents(auditLog)).filter(
      (e) => e.user.username === CELL_USER || e.user.username === IPAM_USER,
    );
    assert.ok(events.length > 0, 'the cell made requests');
    const refused = events.filter((e) => e.responseStatus.code === 403 || e.responseStatus.code === 401);
    assert.deepEqual(
      refused.map((e) => `${e.verb} ${e.requestURI} → ${e.responseStatus.code}`),
      [],
    );
    const used = new Set(events.filter((e) => e.objectRef).map((e) => usedKey(e)));
    const matchesCell = (s: Obj) => s.kind === 'ServiceAccount' && s.name === 'netpresence-cell';
    const matchesCells = (s: Obj) =>
      s.kind === 'Group' && s.name === 'system:serviceaccounts:netpresence-cells';
    const grants = new Set([
      ...granted(CELL_A, 'rbac/cell', matchesCell, (r) => !CLUSTER_SCOPED.has(r)),
      ...granted(PROJECT_PLANE, 'rbac/project', matchesCells, (r) => !CLUSTER_SCOPED.has(r)),
    ]);
    const { unused, notGranted } = compare(grants, used, UNREACHED);
    assert.deepEqual(unused, [], 'granted, never used, and not listed as needed elsewhere');
    assert.deepEqual(notGranted, [], 'used without a grant (the server would have refused it)');
  });
});

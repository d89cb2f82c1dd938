/**
 * Interface visibility through `netpresence up` (scenarios.md §14, S116–S124 and S126): every
 * interface in a hub namespace of a cell is written back to the hub as `<interface>.<cell>` and
 * projected into the project plane next to its Network. Every fleet runs fixture F as a child
 * process; "within 2 seconds" is a real-time bound measured from the When step. Where a scenario
 * stops a cell's controllers, the fleet serves `cell-a` without them and the test runs
 * `netpresence cell` against it, as the cell's own identity; "the controllers starting again"
 * (S120, S126) is when that process's /metrics reports the write-back's workers, which follows its
 * Lease and its first lists (a start under load took over 2 s of that before the bound began).
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import {
  allWithin,
  ALPHA,
  conditionOf,
  get,
  gone,
  GIVEN_WITHIN,
  KINDS,
  present,
  s104Outcome,
  scenario104,
  startFixtureF,
  WITHIN,
  type Any,
  type FleetFixture,
} from '../support/fleet.ts';
import { get as httpGet, startProcess, type RunningProcess } from '../support/process.ts';

const COPY = 'web-0-eth0.cell-a';
const hubCopy = (f: FleetFixture, name = COPY) => get(f, 'hub', 'interfaces', name, f.H);
const projectCopy = (f: FleetFixture, name = COPY) => get(f, ALPHA, 'interfaces', name, 'default');
const cellInterface = (f: FleetFixture, cell = 'cell-a') => get(f, cell, 'interfaces', 'web-0-eth0', f.H);

/** The interface's spec as a copy shows it: without claimRef and attachmentMode. */
function shownSpec(spec: Any): Any {
  const { claimRef: _claimRef, attachmentMode: _attachmentMode, ...shown } = spec;
  return shown;
}

/** A copy's spec, less the `attachmentMode` the API server defaults on every write. */
function copySpec(copy: Any): Any {
  const { attachmentMode: _defaulted, ...spec } = copy.spec;
  return spec;
}

const shownStatus = (iface: Any) => ({
  ...(iface.status.phase !== undefined && { phase: iface.status.phase }),
  conditions: iface.status.conditions,
});

/** True when both copies show the cell interface as it is now. */
async function copiesEqualSource(f: FleetFixture): Promise<boolean> {
  const [iface, atHub, inProject] = await Promise.all([cellInterface(f), hubCopy(f), projectCopy(f)]);
  if (!iface || !atHub || !inProject) return false;
  const { 'networking.datumapis.com/source-namespace': source, ...projectLabels } = inProject.metadata.labels;
  return (
    isDeepStrictEqual(copySpec(atHub), shownSpec(iface.spec)) &&
    isDeepStrictEqual(copySpec(inProject), shownSpec(iface.spec)) &&
    isDeepStrictEqual(atHub.status, shownStatus(iface)) &&
    isDeepStrictEqual(inProject.status, shownStatus(iface)) &&
    isDeepStrictEqual(projectLabels, atHub.metadata.labels) &&
    source === f.H
  );
}

/** Waits until both copies of scenario 116 exist (the Given of S117–S124). */
async function scenario116(f: FleetFixture, claimSpec: Record<string, unknown> = {}): Promise<void> {
  await scenario104(f, claimSpec);
  await allWithin(GIVEN_WITHIN, { 'both copies show the interface': () => copiesEqualSource(f) });
}

/**
 * `netpresence cell` for `cell-a` against the fleet, as the cell's identities: its cell plane
 * (`cell-a-as-cell`), the hub and IPAM under the platform as its own account there
 * (`hub-as-cell-a`, `platform-as-cell-a`).
 */
async function externalCell(f: FleetFixture): Promise<RunningProcess> {
  const path = f.fleet.kubeconfigPath;
  return startProcess('cell', [
    ...['--kubeconfig', path, '--context', 'cell-a-as-cell'],
    ...['--hub-kubeconfig', path, '--hub-context', 'hub-as-cell-a'],
    ...['--ipam-kubeconfig', path, '--ipam-context', 'platform-as-cell-a'],
    ...['--cell-name', 'cell-a', '--log-level', 'warn'],
  ]);
}

/** cell-a's process started again, once its interface write-back runs: a "When" of S120, S126. */
async function restartedCell(f: FleetFixture): Promise<RunningProcess> {
  const running = await externalCell(f);
  try {
    await allWithin(GIVEN_WITHIN, {
      "the cell's write-back runs": async () =>
        WRITE_BACK_RUNNING.test((await httpGet(`${running.metricsUrl}/metrics`)).body),
    });
  } catch (error) {
    await stopProcess(running);
    throw error;
  }
  return running;
}

const WRITE_BACK_RUNNING =
  /^controller_runtime_max_concurrent_reconciles\{controller="interface-write-back"\} [1-9]/m;

async function stopProcess(running: RunningProcess): Promise<void> {
  running.child.kill('SIGTERM');
  assert.equal(await running.exited, 0);
}

describe('interface visibility on the embedded fleet', () => {
  let f: FleetFixture | undefined;
  let cell: RunningProcess | undefined;
  afterEach(async () => {
    if (cell && cell.child.exitCode === null) await stopProcess(cell);
    cell = undefined;
    await f?.dispose();
    f = undefined;
  });

  it('S116 an interface becomes visible in its project', async () => {
    f = await startFixtureF();
    const fixture = f;
    await f.createBinding('web');
    await f.createClaim('cell-a', 'web-0-eth0');
    await allWithin(GIVEN_WITHIN, s104Outcome(f));
    await allWithin(WITHIN, {
      'I@a exists': () => present(fixture, 'hub', 'interfaces', COPY, fixture.H),
      'I@p exists': () => present(fixture, ALPHA, 'interfaces', COPY, 'default'),
    });
    await allWithin(WITHIN, { 'both copies show the interface': () => copiesEqualSource(fixture) });
    const [iface, atHub, inProject, network, hubNamespace] = await Promise.all([
      cellInterface(f),
      hubCopy(f),
      projectCopy(f),
      get(f, ALPHA, 'networks', 'vpc', 'default'),
      get(f, 'hub', 'namespaces', f.H),
    ]);
    assert.deepEqual(atHub.metadata.labels, {
      'networking.datumapis.com/network-interface-projection': 'true',
      'networking.datumapis.com/source-cell': 'cell-a',
      'networking.datumapis.com/location': 'us-central-1',
      'networking.datumapis.com/held-by': 'web-0-eth0',
      'networking.datumapis.com/network': 'vpc',
      'meta.datumapis.com/upstream-cluster-name':
        hubNamespace.metadata.labels['meta.datumapis.com/upstream-cluster-name'],
      'meta.datumapis.com/upstream-namespace':
        hubNamespace.metadata.labels['meta.datumapis.com/upstream-namespace'],
    });
    assert.deepEqual(copySpec(atHub), shownSpec(iface.spec));
    assert.equal(atHub.spec.claimRef, undefined);
    assert.deepEqual(atHub.status, { phase: 'Bound', conditions: iface.status.conditions });
    assert.deepEqual(copySpec(inProject), copySpec(atHub));
    assert.deepEqual(inProject.status, atHub.status);
    assert.deepEqual(inProject.metadata.labels, {
      ...atHub.metadata.labels,
      'networking.datumapis.com/source-namespace': f.H,
    });
    assert.deepEqual(inProject.metadata.ownerReferences, [
      {
        apiVersion: 'networking.datumapis.com/v1alpha',
        kind: 'Network',
        name: 'vpc',
        uid: network.metadata.uid,
        controller: false,
        blockOwnerDeletion: false,
      },
    ]);
    assert.equal(atHub.metadata.finalizers, undefined);
    assert.equal(inProject.metadata.finalizers, undefined);
  });

  it('S117 changes reach both copies', async () => {
    f = await startFixtureF();
    const fixture = f;
    await scenario116(f);
    await f.client(ALPHA, KINDS.networks).patchMerge('vpc', 'default', { spec: { mtu: 8856 } });
    await allWithin(WITHIN, {
      'I@a reads mtu 8856': async () => (await hubCopy(fixture))?.spec.mtu === 8856,
      'I@p reads mtu 8856': async () => (await projectCopy(fixture))?.spec.mtu === 8856,
    });
    const iface = await cellInterface(f);
    const conditions = iface.status.conditions.map((c: Any) =>
      c.type === 'Programmed'
        ? { ...c, status: 'True', reason: 'Programmed', message: 'programmed by the test' }
        : c,
    );
    await f
      .client('cell-a', KINDS.interfaces)
      .patchMerge('web-0-eth0', f.H, { status: { conditions } }, { subresource: 'status' });
    const programmed = (copy: Any) => conditionOf(copy, 'Programmed')?.status === 'True';
    await allWithin(WITHIN, {
      'I@a reads Programmed=True': async () => programmed(await hubCopy(fixture)),
      'I@p reads Programmed=True': async () => programmed(await projectCopy(fixture)),
    });
  });

  it('S118 edits to either interface copy are undone and the cell interface is unchanged', async () => {
    f = await startFixtureF();
    const fixture = f;
    await scenario116(f);
    const before = await cellInterface(f);
    await f.client(ALPHA, KINDS.interfaces).patchMerge(COPY, 'default', { spec: { mtu: 1300 } });
    await f.client('hub', KINDS.interfaces).patchMerge(COPY, f.H, { metadata: { labels: { x: 'y' } } });
    await allWithin(WITHIN, {
      'both copies equal their source': async () =>
        (await copiesEqualSource(fixture)) &&
        (await hubCopy(fixture))?.metadata.labels.x === undefined &&
        (await projectCopy(fixture))?.spec.mtu === 1460,
    });
    const after = await cellInterface(f);
    assert.deepEqual(after.spec, before.spec, 'the cell interface is unchanged');
    assert.deepEqual(after.metadata.labels, before.metadata.labels);
  });

  it('S119 deleting the claim removes the interface and both of its copies', async () => {
    f = await startFixtureF();
    const fixture = f;
    await scenario116(f);
    await f.client('cell-a', KINDS.claims).delete('web-0-eth0', f.H);
    await allWithin(WITHIN, {
      'the interface is gone': () => gone(fixture, 'cell-a', 'interfaces', 'web-0-eth0', fixture.H),
      'I@a is gone': () => gone(fixture, 'hub', 'interfaces', COPY, fixture.H),
      'I@p is gone': () => gone(fixture, ALPHA, 'interfaces', COPY, 'default'),
    });
  });

  it('S120 a missed delete is found at start', async () => {
    f = await startFixtureF({ externalCellA: true });
    const fixture = f;
    cell = await externalCell(f);
    await scenario116(f);
    await stopProcess(cell);
    // The claim goes too (held by its release finalizer until the cell is back): a claim that
    // stays rebuilds its interface at once (S86), and the copies return with it; S120's Then
    // held only in the instant between the write-back's delete and that rebuild.
    await f.client('cell-a', KINDS.claims).delete('web-0-eth0', f.H);
    const interfaces = f.client<Any>('cell-a', KINDS.interfaces);
    await interfaces.patchMerge('web-0-eth0', f.H, { metadata: { finalizers: null } });
    await interfaces.delete('web-0-eth0', f.H);
    await allWithin(GIVEN_WITHIN, {
      'the interface is gone': () => gone(fixture, 'cell-a', 'interfaces', 'web-0-eth0', fixture.H),
    });
    // Nothing else removes them while the cell's controllers are down.
    assert.ok(await present(f, 'hub', 'interfaces', COPY, f.H), 'I@a remains');
    assert.ok(await present(f, ALPHA, 'interfaces', COPY, 'default'), 'I@p remains');
    cell = await restartedCell(f);
    await allWithin(WITHIN, {
      'I@a is gone': () => gone(fixture, 'hub', 'interfaces', COPY, fixture.H),
      'I@p is gone': () => gone(fixture, ALPHA, 'interfaces', COPY, 'default'),
    });
  });

  it('S121 a deleted copy returns', async () => {
    f = await startFixtureF();
    const fixture = f;
    await scenario116(f);
    const before = await projectCopy(f);
    await f.client(ALPHA, KINDS.interfaces).delete(COPY, 'default');
    await allWithin(WITHIN, {
      'I@p exists again': async () => {
        const copy = await projectCopy(fixture);
        return copy !== undefined && copy.metadata.uid !== before.metadata.uid;
      },
    });
    const hubBefore = await hubCopy(f);
    const projectBefore = await projectCopy(f);
    await f.client('hub', KINDS.interfaces).delete(COPY, f.H);
    await allWithin(WITHIN, {
      'I@a exists again': async () => {
        const copy = await hubCopy(fixture);
        return copy !== undefined && copy.metadata.uid !== hubBefore.metadata.uid;
      },
      'I@p exists': () => present(fixture, ALPHA, 'interfaces', COPY, 'default'),
      'both copies show the interface': () => copiesEqualSource(fixture),
    });
    assert.ok(projectBefore);
  });

  it('S122 the Network takes its copies', async () => {
    f = await startFixtureF();
    const fixture = f;
    await scenario116(f);
    await f.client(ALPHA, KINDS.networks).delete('vpc', 'default');
    await allWithin(WITHIN, {
      'I@p is gone': () => gone(fixture, ALPHA, 'interfaces', COPY, 'default'),
      'I@a stays': () => present(fixture, 'hub', 'interfaces', COPY, fixture.H),
    });
    // Not recreated while vpc is absent or deleting: a write of the projector would show in
    // the plane's list, and I@a (its trigger) is rewritten by a change of the interface.
    const iface = await cellInterface(f);
    const conditions = iface.status.conditions.map((c: Any) =>
      c.type === 'Prepared' ? { ...c, status: 'True', reason: 'Prepared', message: 'by the test' } : c,
    );
    await f
      .client('cell-a', KINDS.interfaces)
      .patchMerge('web-0-eth0', f.H, { status: { conditions } }, { subresource: 'status' });
    await allWithin(WITHIN, {
      'I@a shows the change': async () => conditionOf(await hubCopy(fixture), 'Prepared')?.status === 'True',
    });
    const network = await get(f, ALPHA, 'networks', 'vpc', 'default');
    assert.ok(network === undefined || network.metadata.deletionTimestamp !== undefined);
    assert.equal(await projectCopy(f), undefined, 'I@p is not recreated');
    assert.ok(await hubCopy(f), 'I@a stays while the cell interface exists');
  });

  it('S123 two cells, one name', async () => {
    f = await startFixtureF({ cells: [{ name: 'cell-b', location: 'eu-west-1' }], euWest1: true });
    const fixture = f;
    await scenario116(f);
    await f.fleet.client('hub', KINDS.networkBindings).create({
      metadata: { name: 'web-eu', namespace: f.H },
      spec: { network: { name: 'vpc' }, location: { name: 'eu-west-1' } },
    });
    await f.createClaim('cell-b', 'web-0-eth0');
    const location = async (context: string, namespace: string, name: string) =>
      (await get(fixture, context, 'interfaces', name, namespace))?.metadata.labels[
        'networking.datumapis.com/location'
      ];
    await allWithin(GIVEN_WITHIN, {
      'H holds web-0-eth0.cell-a at us-central-1': async () =>
        (await location('hub', fixture.H, COPY)) === 'us-central-1',
      'H holds web-0-eth0.cell-b at eu-west-1': async () =>
        (await location('hub', fixture.H, 'web-0-eth0.cell-b')) === 'eu-west-1',
      'default holds web-0-eth0.cell-a at us-central-1': async () =>
        (await location(ALPHA, 'default', COPY)) === 'us-central-1',
      'default holds web-0-eth0.cell-b at eu-west-1': async () =>
        (await location(ALPHA, 'default', 'web-0-eth0.cell-b')) === 'eu-west-1',
    });
    const listed = await f.fleet.kubectl.ok([
      '--context',
      ALPHA,
      'get',
      'networkinterfaces',
      '-n',
      'default',
      '-L',
      'networking.datumapis.com/location',
    ]);
    const rows = listed.trim().split('\n');
    assert.match(rows[0], /LOCATION/);
    assert.ok(
      rows.some((row) => /^web-0-eth0\.cell-a\s.*\sus-central-1\s*$/.test(row)),
      listed,
    );
    assert.ok(
      rows.some((row) => /^web-0-eth0\.cell-b\s.*\seu-west-1\s*$/.test(row)),
      listed,
    );
    assert.equal(rows.length, 3, listed);
  });

  it('S124 a retained interface shows Available without held-by on both copies', async () => {
    f = await startFixtureF();
    const fixture = f;
    await scenario116(f, { reclaimPolicy: 'Retain' });
    await f.client('cell-a', KINDS.claims).delete('web-0-eth0', f.H);
    const retained = (copy: Any) =>
      copy?.status?.phase === 'Available' &&
      copy.metadata.labels['networking.datumapis.com/held-by'] === undefined;
    await allWithin(WITHIN, {
      'I@a reads Available, no held-by': async () => retained(await hubCopy(fixture)),
      'I@p reads Available, no held-by': async () => retained(await projectCopy(fixture)),
    });
  });

  it('S126 a copy is written by its own cell only', async () => {
    f = await startFixtureF({
      externalCellA: true,
      cells: [{ name: 'cell-b', location: 'eu-west-1' }],
      euWest1: true,
    });
    const fixture = f;
    cell = await externalCell(f);
    await scenario116(f);
    await f.fleet.client('hub', KINDS.networkBindings).create({
      metadata: { name: 'web-eu', namespace: f.H },
      spec: { network: { name: 'vpc' }, location: { name: 'eu-west-1' } },
    });
    await f.createClaim('cell-b', 'web-0-eth0');
    await allWithin(GIVEN_WITHIN, {
      'web-0-eth0.cell-b is on the hub': () =>
        present(fixture, 'hub', 'interfaces', 'web-0-eth0.cell-b', fixture.H),
    });
    const stray = await f.client<Any>('hub', KINDS.interfaces).create({
      metadata: {
        name: 'stray',
        namespace: f.H,
        labels: { 'networking.datumapis.com/network-interface-projection': 'true' },
      },
      spec: { network: { name: 'vpc' } },
    });
    await allWithin(GIVEN_WITHIN, {
      "cell-b's copy shows its interface": async () => {
        const [iface, copy] = await Promise.all([
          cellInterface(fixture, 'cell-b'),
          get(fixture, 'hub', 'interfaces', 'web-0-eth0.cell-b', fixture.H),
        ]);
        return (
          iface?.status?.phase === 'Bound' &&
          isDeepStrictEqual(copySpec(copy), shownSpec(iface.spec)) &&
          isDeepStrictEqual(copy.status, shownStatus(iface))
        );
      },
    });
    const otherCell = await get(f, 'hub', 'interfaces', 'web-0-eth0.cell-b', f.H);
    await stopProcess(cell);
    // An edit while cell-a is down shows when its restarted write-back has reconciled.
    await f.client('hub', KINDS.interfaces).patchMerge(COPY, f.H, { metadata: { labels: { x: 'y' } } });
    cell = await restartedCell(f);
    await allWithin(WITHIN, {
      'I@a equals its source again': async () =>
        (await hubCopy(fixture))?.metadata.labels.x === undefined && (await copiesEqualSource(fixture)),
    });
    const strayAfter = await get(f, 'hub', 'interfaces', 'stray', f.H);
    const otherAfter = await get(f, 'hub', 'interfaces', 'web-0-eth0.cell-b', f.H);
    assert.equal(strayAfter?.metadata.resourceVersion, stray.metadata.resourceVersion, 'stray unchanged');
    assert.equal(
      otherAfter?.metadata.resourceVersion,
      otherCell.metadata.resourceVersion,
      'web-0-eth0.cell-b unchanged',
    );
  });
});

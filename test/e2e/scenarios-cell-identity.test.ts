/**
 * Location identity scenarios (scenarios.md §9, S75–S77): how the cell resolves the location it
 * serves, what its gauges show, and how a change of identity reaches the claims.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { LocationIdentity } from '../../src/controllers/cell/identity.ts';
import type { CellProcess } from '../../src/processes/cell.ts';
import {
  bound,
  claimCondition,
  conditionOf,
  createClaim,
  deliverServingLocation,
  metricSeries,
  startFixtureK,
  until,
  WITHIN,
  type CellScenario,
} from '../support/cell-fixtures.ts';

let k: CellScenario | undefined;
afterEach(async () => {
  await k?.stop();
  k = undefined;
});

const SOURCE = 'netpresence_cell_location_identity_source';
const MISMATCH = 'netpresence_cell_location_identity_mismatch';
const WAITING = 'netpresence_cell_location_identity_waiting';

interface Row {
  delivered: string[];
  configured?: string;
  identity?: string;
  source?: string;
  mismatch?: boolean;
  waiting?: string;
}

const TABLE: Row[] = [
  { delivered: ['us-central-1'], identity: 'us-central-1', source: 'Delivered' },
  { delivered: ['us-central-1'], configured: 'us-central-1', identity: 'us-central-1', source: 'Delivered' },
  {
    delivered: ['us-central-1'],
    configured: 'fra-1',
    identity: 'us-central-1',
    source: 'Delivered',
    mismatch: true,
  },
  { delivered: [], configured: 'fra-1', identity: 'fra-1', source: 'Configured' },
  { delivered: ['a', 'b'], waiting: 'AmbiguousLocationIdentity' },
  { delivered: ['a', 'b'], configured: 'fra-1', identity: 'fra-1', source: 'Configured' },
  { delivered: [], waiting: 'NoLocationIdentity' },
];

async function deliverExactly(fixture: CellScenario, names: string[]): Promise<void> {
  for (const held of (await fixture.servingLocations.list()).items)
    if (!names.includes(held.metadata.name!)) await fixture.servingLocations.delete(held.metadata.name!);
  for (const name of names)
    if (!(await fixture.servingLocations.get(name))) await deliverServingLocation(fixture, name);
}

describe('location identity', () => {
  it('S75 the identity resolves from delivered and configured locations as the table says', async () => {
    k = await startFixtureK({ servingLocation: false, controllers: false });
    for (const row of TABLE) {
      const label = JSON.stringify(row);
      await k.stopCell();
      await deliverExactly(k, row.delivered);
      const cell: CellProcess = await k.startCell(undefined, row.configured);
      await until(() => cell.ctx.identity.current() !== undefined, WITHIN, `an identity for ${label}`);
      const identity: LocationIdentity = cell.ctx.identity.current()!;
      if (row.identity) {
        assert.ok(identity.resolved, label);
        assert.equal(identity.location, row.identity, label);
        assert.equal(identity.source, row.source, label);
      } else {
        assert.equal(identity.resolved, false, label);
        assert.equal(!identity.resolved && identity.reason, row.waiting, label);
      }
      assert.deepEqual(
        await metricSeries(k, SOURCE),
        row.identity ? [{ source: row.source, location: row.identity, value: 1 }] : [],
        label,
      );
      assert.deepEqual(
        await metricSeries(k, MISMATCH),
        row.mismatch ? [{ location: row.identity, value: 1 }] : [],
        label,
      );
      assert.deepEqual(
        await metricSeries(k, WAITING),
        row.waiting ? [{ reason: row.waiting, value: 1 }] : [],
        label,
      );
    }
  });

  it('S76 identity arriving wakes claims', async () => {
    k = await startFixtureK({ servingLocation: false });
    await createClaim(k, 'web-0-eth0');
    const waiting = await claimCondition(k, 'web-0-eth0', 'Ready', 'NoLocationIdentity', 'False');
    assert.match(conditionOf(waiting, 'Ready')!.message, /topology\.datum\.net\/location/);
    await deliverServingLocation(k, 'us-central-1');
    await bound(k, 'web-0-eth0');
  });

  it('S77 ambiguity does not unbind', async () => {
    k = await startFixtureK({ servingLocation: false });
    await createClaim(k, 'web-0-eth0');
    await claimCondition(k, 'web-0-eth0', 'Ready', 'NoLocationIdentity', 'False');
    await deliverServingLocation(k, 'us-central-1');
    await claimCondition(k, 'web-0-eth0', 'Ready', 'NotPrepared', 'Unknown');
    const iface = (await k.interfaces.get('web-0-eth0', k.H))!;
    await deliverServingLocation(k, 'b');
    const ambiguous = await claimCondition(k, 'web-0-eth0', 'Ready', 'AmbiguousLocationIdentity', 'False');
    assert.equal(conditionOf(ambiguous, 'Bound')?.status, 'True');
    assert.equal(conditionOf(ambiguous, 'Allocated')?.status, 'True');
    assert.equal(
      (await k.interfaces.get('web-0-eth0', k.H))?.metadata.resourceVersion,
      iface.metadata.resourceVersion,
    );
    await k.servingLocations.delete('b');
    await claimCondition(k, 'web-0-eth0', 'Ready', 'NotPrepared', 'Unknown');
  });
});

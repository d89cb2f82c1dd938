import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { queryOverview, signatureOf, type Overview } from './overview.ts';
import type { PairView, RowView } from './view-types.ts';

const pair = (location: string, state: PairView['state']): PairView => ({
  location,
  state,
  words: state,
  bindings: { ready: 0, total: 0, names: state === 'unbound' ? [] : [`web-${location}`] },
  hubCopy: false,
  policy: false,
  cells: [],
});
const row = (project: string, network: string, states: PairView['state'][]): RowView => ({
  project,
  namespace: 'default',
  network,
  pairs: ['a', 'b'].map((l, i) => pair(l, states[i])),
});
const overview: Overview = {
  locations: ['a', 'b'],
  rows: [
    row('p1', 'n', ['ready', 'unbound']),
    row('p2', 'n', ['refused', 'unbound']),
    row('p3', 'm', ['unbound', 'unbound']),
  ],
  totals: { bindingsReady: 1, bindings: 2, claimsBound: 0, claims: 0, refusals: {} },
};

describe('overview query', () => {
  it('filters by project, network, location, state and search, and pages', () => {
    assert.deepEqual(
      queryOverview(overview, { project: 'p2' }).rows.map((r) => r.project),
      ['p2'],
    );
    assert.deepEqual(
      queryOverview(overview, { network: 'n' }).rows.map((r) => r.project),
      ['p1', 'p2'],
    );
    assert.deepEqual(
      queryOverview(overview, { state: 'refused' }).rows.map((r) => r.project),
      ['p2'],
    );
    const located = queryOverview(overview, { location: 'b' });
    assert.deepEqual(located.locations, ['b']);
    assert.ok(located.rows.every((r) => r.pairs.length === 1 && r.pairs[0].location === 'b'));
    assert.deepEqual(
      queryOverview(overview, { search: 'WEB-A' }).rows.map((r) => r.project),
      ['p1', 'p2'],
    );
    const paged = queryOverview(overview, { pageSize: 2, page: 2 });
    assert.deepEqual([paged.page, paged.pages, paged.matching, paged.rows.length], [2, 2, 3, 1]);
  });

  it('searches names and binding names ignoring case, within the selected location, never across fields', () => {
    const search = (search: string, location?: string) =>
      queryOverview(overview, { search, location }).rows.map((r) => r.project);
    assert.deepEqual(search('P3 DEFAULT M'), ['p3'], 'project namespace network, with spaces');
    assert.deepEqual(search('web-a'), ['p1', 'p2']);
    assert.deepEqual(search('web-a', 'b'), [], 'web-a is bound in location a, not b');
    assert.deepEqual(search('p1', 'b'), ['p1'], 'the name matches in any location');
    assert.deepEqual(search('mweb'), [], 'the network and a binding name are not one string');
    // The keys are per overview: a new overview (after a change) is searched afresh.
    const changed: Overview = { ...overview, rows: [row('p9', 'n', ['ready', 'unbound'])] };
    assert.deepEqual(
      queryOverview(changed, { search: 'p9' }).rows.map((r) => r.project),
      ['p9'],
    );
  });

  it('signs each paged row by its content, so the page redraws only rows that changed', () => {
    const first = queryOverview(overview, {}).rows;
    // The next overview (after a change) has equal rows but one: p2's pair in b turned ready.
    const next: Overview = {
      ...overview,
      rows: [
        row('p1', 'n', ['ready', 'unbound']),
        row('p2', 'n', ['refused', 'ready']),
        row('p3', 'm', ['unbound', 'unbound']),
      ],
    };
    const second = queryOverview(next, {}).rows;
    assert.deepEqual(
      first.map((r, i) => r.sig === second[i].sig),
      [true, false, true],
    );
    // The signature is of the whole row, whichever columns a query shows.
    assert.equal(queryOverview(overview, { location: 'b' }).rows[0].sig, first[0].sig);
    assert.equal(signatureOf(overview.rows[0]), first[0].sig);
  });
});

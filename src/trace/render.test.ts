import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Hop } from './hop.ts';
import { renderTrace, renderVerdict, verdictMessages } from './render.ts';
import { exitCodeOf, verdictOf } from './verdict.ts';

const ok = (id: Hop['id'], object: string): Hop => ({ id, plane: 'hub', object, state: 'ok' });

describe('render and verdict', () => {
  it('prints one line per hop, its note indented beneath, and the verdict last', () => {
    const hops: Hop[] = [
      ok('binding', 'NetworkBinding ns-1/web'),
      {
        id: 'location-binding',
        plane: 'project-p',
        object: 'LocationBinding l',
        state: 'missing',
        note: 'no binding',
        advice: 'project it',
      },
    ];
    const lines = renderTrace(hops);
    assert.equal(lines.length, 4);
    assert.match(lines[0], /^ok {10}binding {11}hub {8}NetworkBinding ns-1\/web$/);
    assert.match(lines[1], /^MISSING {5}location binding {2}project-p {2}LocationBinding l$/);
    assert.equal(lines[2], `${' '.repeat(12)}no binding`);
    assert.equal(lines[3], 'verdict: location binding LocationBinding l in project-p is missing: project it');
  });

  it('a refusal pointing at a failing hop makes that hop the verdict; a fixed cause leaves it on the reporter', () => {
    const reporter: Hop = {
      id: 'binding',
      plane: 'hub',
      object: 'NetworkBinding ns-1/web',
      state: 'refusing',
      condition: { type: 'Ready', status: 'False', reason: 'NetworkNotFound', message: '' },
      causes: ['network'],
      advice: 'stale',
    };
    const network: Hop = {
      id: 'network',
      plane: 'p',
      object: 'Network vpc',
      state: 'missing',
      advice: 'create it',
    };
    assert.deepEqual(verdictOf([reporter, network]), { hop: network, reportedBy: reporter });
    assert.equal(
      renderVerdict([reporter, network]),
      'verdict: network Network vpc in p is missing (NetworkBinding ns-1/web reports NetworkNotFound): create it',
    );
    assert.deepEqual(verdictOf([reporter, { ...network, state: 'ok' }]), { hop: reporter });
  });

  it('exits 0 only when every hop is ok', () => {
    assert.equal(exitCodeOf([ok('binding', 'b')]), 0);
    assert.equal(renderVerdict([ok('binding', 'b')]), verdictMessages.allReady);
    assert.equal(exitCodeOf([ok('binding', 'b'), { ...ok('network', 'n'), state: 'unchecked' }]), 1);
  });

  it('an unreadable hop without advice is told to make its plane readable', () => {
    const verdict = verdictOf([
      { id: 'network', plane: 'project-p', object: 'Network vpc', state: 'unreachable' },
    ]);
    assert.match(verdict!.hop.advice!, /make plane "project-p" readable/);
  });
});

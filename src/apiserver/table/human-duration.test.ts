import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { humanDuration } from './human-duration.ts';

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;

function expectAll(cases: [number, string][]): void {
  for (const [ms, expected] of cases) assert.equal(humanDuration(ms), expected, `${ms} ms`);
}

describe('humanDuration', () => {
  it('prints seconds up to 119s, then minutes with seconds until 10m', () => {
    expectAll([
      [0, '0s'],
      [999, '0s'],
      [59 * s, '59s'],
      [119 * s + 999, '119s'],
      [120 * s, '2m'],
      [121 * s, '2m1s'],
      [9 * m + 59 * s, '9m59s'],
    ]);
  });

  it('prints whole minutes from 10m until 3h', () => {
    expectAll([
      [10 * m, '10m'],
      [10 * m + 59 * s, '10m'],
      [179 * m + 59 * s, '179m'],
    ]);
  });

  it('prints hours with minutes until 8h, then whole hours until 48h', () => {
    expectAll([
      [3 * h, '3h'],
      [3 * h + 30 * m, '3h30m'],
      [7 * h + 59 * m + 59 * s, '7h59m'],
      [8 * h, '8h'],
      [47 * h + 59 * m, '47h'],
    ]);
  });

  it('prints days with hours until 8d, then whole days until two years', () => {
    expectAll([
      [48 * h, '2d'],
      [49 * h, '2d1h'],
      [8 * d - 1, '7d23h'],
      [8 * d, '8d'],
      [729 * d + 23 * h, '729d'],
    ]);
  });

  it('prints years with days until 8y, then whole years', () => {
    expectAll([
      [730 * d, '2y'],
      [731 * d, '2y1d'],
      [8 * 365 * d - 1, '7y364d'],
      [8 * 365 * d, '8y'],
      [3000 * d, '8y'],
      [20 * 365 * d, '20y'],
    ]);
  });

  it('treats less than two seconds in the future as 0s and anything further as <invalid>', () => {
    expectAll([
      [-1 * s, '0s'],
      [-1999, '0s'],
      [-2 * s, '<invalid>'],
      [-5 * m, '<invalid>'],
    ]);
  });
});

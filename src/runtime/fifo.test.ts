import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Fifo } from './fifo.ts';

describe('a FIFO queue', () => {
  it('hands items out in the order they went in, across compactions and interleaved pushes', () => {
    const fifo = new Fifo<number>();
    const taken: number[] = [];
    let next = 0;
    // Pushes two for every take, so the store grows past every compaction threshold.
    for (let round = 0; round < 5000; round++) {
      fifo.push(next++);
      fifo.push(next++);
      taken.push(fifo.shift()!);
    }
    while (fifo.length > 0) taken.push(fifo.shift()!);
    assert.deepEqual(
      taken,
      Array.from({ length: next }, (_, i) => i),
    );
  });

  it('counts what it holds, and answers undefined when empty', () => {
    const fifo = new Fifo<string>();
    assert.equal(fifo.shift(), undefined);
    fifo.push('a');
    fifo.push('b');
    assert.equal(fifo.length, 2);
    assert.equal(fifo.shift(), 'a');
    assert.equal(fifo.length, 1);
    fifo.clear();
    assert.equal(fifo.length, 0);
    assert.equal(fifo.shift(), undefined);
    fifo.push('c');
    assert.equal(fifo.shift(), 'c');
  });
});

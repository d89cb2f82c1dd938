import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { observeRequestLatency, requestStarted } from './request-latency.ts';

describe('request latency', () => {
  it('reports a request to the observer of its start, once answered', () => {
    const seen: string[] = [];
    const stop = observeRequestLatency((method, host, seconds) => {
      assert.ok(seconds >= 0);
      seen.push(`${method} ${host}`);
    });
    const answered = requestStarted('PATCH', 'example:443');
    assert.deepEqual(seen, []);
    answered();
    stop();
    requestStarted('GET', 'example:443')();
    assert.deepEqual(seen, ['PATCH example:443']);
  });

  it('keeps a later observer when an earlier one is stopped', () => {
    const first: string[] = [];
    const second: string[] = [];
    const stopFirst = observeRequestLatency((method) => first.push(method));
    const stopSecond = observeRequestLatency((method) => second.push(method));
    stopFirst();
    requestStarted('PUT', 'h')();
    stopSecond();
    assert.deepEqual([first, second], [[], ['PUT']]);
  });
});

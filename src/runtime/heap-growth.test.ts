import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import {
  DEFAULT_MEMORY_LIMIT,
  MAX_GROWING_PERCENT,
  MEMORY_LIMIT_VARIABLE,
  MIN_GROWING_PERCENT,
  cgroupLimit,
  growingPercent,
  growthGiven,
  memoryLimit,
  parseSize,
  startHeapGrowth,
} from './heap-growth.ts';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

describe('heap growth', () => {
  it('lets a heap double while the process is far under its limit, and less as the headroom shrinks', () => {
    assert.equal(growingPercent(0.5 * GiB, 4 * GiB), MAX_GROWING_PERCENT);
    assert.equal(growingPercent(2 * GiB, 4 * GiB), 100);
    assert.equal(growingPercent(2.5 * GiB, 4 * GiB), 60);
    assert.equal(growingPercent(2.8 * GiB, 4 * GiB), 42);
    // Nearer the limit, or past it: the floor, the fixed growth of before.
    assert.equal(growingPercent(3 * GiB, 4 * GiB), MIN_GROWING_PERCENT);
    assert.equal(growingPercent(5 * GiB, 4 * GiB), MIN_GROWING_PERCENT);
    // A 512-MiB container at 300 MiB: the heaps may grow by the 212 MiB left, 70 % of 300.
    assert.equal(growingPercent(300 * MiB, 512 * MiB), 70);
  });

  it('reads a size as Kubernetes writes memory, and nothing else', () => {
    assert.equal(parseSize('536870912'), 512 * MiB);
    assert.equal(parseSize('512Mi'), 512 * MiB);
    assert.equal(parseSize(' 4Gi '), 4 * GiB);
    assert.equal(parseSize('64Ki'), 64 * 1024);
    for (const text of ['', '0', '4G', '4gi', '1.5Gi', '-1', 'lots', '4 Gi', '99999999999999999999'])
      assert.equal(parseSize(text), undefined, text);
  });

  it('takes a container limit from its cgroup file, and none when it says unlimited', () => {
    assert.equal(cgroupLimit('536870912\n'), 512 * MiB);
    assert.equal(cgroupLimit('max\n'), undefined);
    assert.equal(cgroupLimit('9223372036854771712\n'), undefined, 'cgroup v1 without a limit');
    assert.equal(cgroupLimit(undefined), undefined);
    assert.equal(cgroupLimit(''), undefined);
  });

  it('finds the limit in the environment, else the container, else the default', () => {
    const files: Record<string, string> = {
      '/sys/fs/cgroup/memory.max': 'max\n',
      '/sys/fs/cgroup/memory/memory.limit_in_bytes': `${768 * MiB}\n`,
    };
    const read = (path: string) => files[path];
    assert.equal(memoryLimit({ [MEMORY_LIMIT_VARIABLE]: '2Gi' }, read), 2 * GiB);
    assert.equal(memoryLimit({}, read), 768 * MiB, 'cgroup v1, v2 unlimited');
    files['/sys/fs/cgroup/memory.max'] = `${512 * MiB}\n`;
    assert.equal(memoryLimit({ [MEMORY_LIMIT_VARIABLE]: '' }, read), 512 * MiB, 'cgroup v2 first');
    assert.equal(
      memoryLimit({}, () => undefined),
      DEFAULT_MEMORY_LIMIT,
    );
    assert.throws(
      () => memoryLimit({ [MEMORY_LIMIT_VARIABLE]: '4GB' }, read),
      (err: Error) => err.message.startsWith(`${MEMORY_LIMIT_VARIABLE}: "4GB" is not a size`),
    );
  });

  it('keeps the growth node was started with, in either spelling of the flag', () => {
    for (const given of [
      ['--heap-growing-percent=80'],
      ['--heap_growing_percent=10'],
      ['--heap-growing-percent', '20'],
    ])
      assert.ok(growthGiven(given), given.join(' '));
    assert.ok(!growthGiven(['--heap-growing-percentage-of-nothing', '--max-semi-space-size=32']));
    const set: number[] = [];
    startHeapGrowth(
      4 * GiB,
      (percent) => set.push(percent),
      () => GiB,
      ['--heap-growing-percent=80'],
    ).stop();
    assert.deepEqual(set, []);
  });

  it('sets the growth at start and follows the resident memory each second, by steps of 5 or to a bound', () => {
    mock.timers.enable({ apis: ['setInterval'] });
    try {
      const set: number[] = [];
      let rss = 1 * GiB;
      const growth = startHeapGrowth(
        4 * GiB,
        (percent) => set.push(percent),
        () => rss,
        [],
      );
      assert.deepEqual(set, [100]);
      rss = 2.5 * GiB; // 60 %
      mock.timers.tick(1000);
      rss = 2.55 * GiB; // 56 %: under a step from 60, left as it is
      mock.timers.tick(1000);
      rss = 3.5 * GiB; // the floor
      mock.timers.tick(1000);
      rss = 2 * GiB; // back to the cap
      mock.timers.tick(1000);
      assert.deepEqual(set, [100, 60, MIN_GROWING_PERCENT, 100]);
      growth.stop();
      rss = 3 * GiB;
      mock.timers.tick(5000);
      assert.equal(set.length, 4, 'nothing after stop');
    } finally {
      mock.timers.reset();
    }
  });
});

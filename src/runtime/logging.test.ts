import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { controllerLogger, reconcileLogger, rootLogger } from './logging.ts';

function capture(level: 'info' | 'debug' = 'info') {
  const lines: Record<string, unknown>[] = [];
  const log = rootLogger({ level, destination: { write: (line: string) => lines.push(JSON.parse(line)) } });
  return { lines, log };
}

describe('logging', () => {
  it('writes controller, plane and key as fields of every line of a reconcile logger', () => {
    const { lines, log } = capture();
    const reconcileLog = controllerLogger(log, {
      controller: 'presence',
      plane: 'project-a',
      key: 'ns/net/loc',
    });
    reconcileLog.info('context created');
    reconcileLog.error({ err: new Error('boom') }, 'write refused');
    assert.equal(lines.length, 2);
    for (const line of lines) {
      assert.equal(line.controller, 'presence');
      assert.equal(line.plane, 'project-a');
      assert.equal(line.key, 'ns/net/loc');
    }
    assert.equal(lines[0].msg, 'context created');
  });

  it('omits plane and key when they are not given, rather than writing them empty', () => {
    const { lines, log } = capture();
    controllerLogger(log, { controller: 'presence' }).info('starting workers');
    assert.equal(lines[0].controller, 'presence');
    assert.equal('plane' in lines[0], false);
    assert.equal('key' in lines[0], false);
  });

  it('writes nothing below the chosen level, and names the process when asked', () => {
    const lines: Record<string, unknown>[] = [];
    const log = rootLogger({
      level: 'info',
      name: 'hub-controller-manager',
      destination: { write: (line: string) => lines.push(JSON.parse(line)) },
    });
    log.debug('hidden');
    log.info('shown');
    assert.deepEqual(
      lines.map((line) => [line.msg, line.name]),
      [['shown', 'hub-controller-manager']],
    );
  });

  it('a reconcile logger writes the lines a controller logger writes, with the same fields', () => {
    const eager = capture('debug');
    const lazy = capture('debug');
    const fields = { controller: 'presence', plane: 'project-a', key: 'ns/net/loc' };
    for (const [log, make] of [
      [eager.log, controllerLogger],
      [lazy.log, reconcileLogger],
    ] as const) {
      const reconcileLog = make(log, fields);
      reconcileLog.debug({ retries: 2 }, 'stale');
      reconcileLog.child({ step: 'write' }).info('patched');
      reconcileLog.error({ err: new Error('boom') }, 'write refused');
    }
    const strip = (lines: Record<string, unknown>[]) => lines.map(({ time: _t, pid: _p, ...rest }) => rest);
    assert.equal(lazy.lines.length, 3);
    assert.deepEqual(strip(lazy.lines), strip(eager.lines));
    assert.deepEqual(reconcileLogger(lazy.log, fields).bindings(), fields);
  });

  it('a reconcile logger that logs only below the level makes no child', () => {
    const { lines, log } = capture('info');
    let children = 0;
    const child = log.child.bind(log);
    log.child = ((...args: Parameters<typeof log.child>) => {
      children += 1;
      return child(...args);
    }) as typeof log.child;
    const reconcileLog = reconcileLogger(log, { controller: 'presence', key: 'k' });
    reconcileLog.debug('reconciled');
    reconcileLog.trace({ a: 1 }, 'detail');
    assert.equal(children, 0);
    assert.equal(reconcileLog.isLevelEnabled('debug'), false);
    assert.equal(children, 1);
    reconcileLog.info('shown');
    assert.equal(children, 1);
    assert.deepEqual(
      lines.map((line) => [line.msg, line.controller, line.key]),
      [['shown', 'presence', 'k']],
    );
  });
});

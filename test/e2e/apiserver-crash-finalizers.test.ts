/**
 * Scenario 133 through a real crash: a `netpresence apiserver --data-dir` child process whose
 * clients keep removing the last finalizer of deleting ConfigMaps is SIGKILLed at random
 * moments and restarted on the same directory; after every restart each ConfigMap is either
 * still there with its finalizer or gone, never deleting without finalizers.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { eventually } from '../support/apiserver.ts';
import { call, startChildServer, type PlaneTarget } from '../support/child-server.ts';

const RUNS = 4;
const FINALIZER = 'example.com/f';
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

/** Create with a finalizer, delete, then remove the finalizer: until the server dies. */
async function finalize(
  target: PlaneTarget,
  stop: { now: boolean },
  writer: string,
  progress: { removed: number },
): Promise<number> {
  let done = 0;
  for (let i = 0; !stop.now; i++) {
    const name = `${writer}-${i}`;
    try {
      await call(target, 'POST', CONFIGMAPS, { metadata: { name, finalizers: [FINALIZER] } });
      await call(target, 'DELETE', `${CONFIGMAPS}/${name}`);
      const res = await call(
        target,
        'PATCH',
        `${CONFIGMAPS}/${name}`,
        { metadata: { finalizers: null } },
        'application/merge-patch+json',
      );
      if (res.status === 200) {
        done++;
        progress.removed++;
      }
    } catch {
      return done; // the server died mid-request
    }
  }
  return done;
}

describe('durable finalizer removal', () => {
  it(
    `S133 after ${RUNS} SIGKILLs during last-finalizer removals, no object is deleting without finalizers`,
    { timeout: 300_000 },
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'netpresence-finalizers-'));
      const args = ['--data-dir', join(dir, 'data'), '--plane', 'hub'];
      const kubeconfig = join(dir, 'kubeconfig');
      let finalized = 0;
      try {
        for (let run = 0; run <= RUNS; run++) {
          const server = await startChildServer(args, kubeconfig);
          const target = await server.target('hub');
          const list = JSON.parse((await call(target, 'GET', CONFIGMAPS)).body);
          for (const cm of list.items) {
            const { name, deletionTimestamp, finalizers } = cm.metadata;
            assert.ok(
              !deletionTimestamp || (finalizers ?? []).length > 0,
              `run ${run}: ConfigMap ${name} is deleting without finalizers`,
            );
          }
          if (run === RUNS) {
            server.child.kill('SIGTERM');
            await server.exited;
            target.agent.destroy();
            break;
          }
          const stop = { now: false };
          const progress = { removed: 0 };
          const writers = Array.from({ length: 4 }, (_, w) =>
            finalize(target, stop, `r${run}w${w}`, progress),
          );
          // The kill lands at a random moment after the writers are under way, however loaded the
          // machine: once a removal was acknowledged in this run, a random 0–300 ms later.
          await eventually(() => progress.removed > 0 || undefined, 120_000, 'a removal acknowledged');
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 300));
          server.child.kill('SIGKILL');
          stop.now = true;
          for (const done of await Promise.all(writers)) finalized += done;
          await server.exited;
          target.agent.destroy();
        }
        assert.ok(finalized > RUNS, `the clients removed finalizers (${finalized} acknowledged)`);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});

/**
 * Durability: a `netpresence apiserver --data-dir` child process killed with SIGKILL in the
 * middle of a write storm loses nothing it acknowledged, keeps every resourceVersion, and lets
 * a watcher resume from the last revision it saw.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { eventually } from '../support/apiserver.ts';
import { call, openWatch, startChildServer, type PlaneTarget } from '../support/child-server.ts';

const RUNS = 20;
/** A cold start of the server (TypeScript loaded through tsx) takes over 20 s on a loaded machine. */
const START_MS = 120_000;

async function storm(
  target: PlaneTarget,
  acknowledged: Map<string, string>,
  stop: { now: boolean },
  writer: number,
) {
  for (let i = 0; !stop.now; i++) {
    const name = `w${writer}-${i}`;
    try {
      const res = await call(target, 'POST', '/api/v1/namespaces/default/configmaps', {
        metadata: { name },
        data: { i: String(i) },
      });
      if (res.status === 201) acknowledged.set(name, JSON.parse(res.body).metadata.resourceVersion);
    } catch {
      return; // the server died mid-request: this write was never acknowledged
    }
  }
}

describe('durability', () => {
  // 64 writers: writes arriving while an fsync is in flight are committed together (group
  // commit), and each is still acknowledged only once its own batch is stored.
  for (const WRITERS of [4, 64])
    it(
      `keeps every write acknowledged to ${WRITERS} concurrent writers across ${RUNS} SIGKILLs at random moments, and watches resume`,
      { timeout: RUNS * (START_MS + 10_000) },
      async () => {
        const dir = await mkdtemp(join(tmpdir(), 'netpresence-crash-'));
        const dataDir = join(dir, 'data');
        const kubeconfig = join(dir, 'kubeconfig');
        const acknowledged = new Map<string, string>();
        try {
          let watcherLastSeen = 0;
          for (let run = 0; run < RUNS; run++) {
            const server = await startChildServer(
              ['--data-dir', dataDir, '--plane', 'hub'],
              kubeconfig,
              START_MS,
            );
            const target = await server.target('hub');
            // Everything acknowledged before is still there, with the same resourceVersion.
            const list = JSON.parse(
              (await call(target, 'GET', '/api/v1/namespaces/default/configmaps')).body,
            );
            const stored = new Map<string, string>(
              list.items.map((cm: any) => [cm.metadata.name, cm.metadata.resourceVersion]),
            );
            for (const [name, resourceVersion] of acknowledged) {
              assert.equal(stored.get(name), resourceVersion, `run ${run}: ${name} lost or changed`);
            }
            // The watcher of the previous run resumes strictly after the last revision it saw: it
            // is replayed exactly the objects stored after that revision, with no gap and no 410.
            const missed = [...stored].filter(([, rv]) => Number(rv) > watcherLastSeen).map(([name]) => name);
            const replayed: any[] = [];
            const resume = await openWatch(
              target,
              `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${watcherLastSeen}`,
              (e) => replayed.push(e),
            );
            await eventually(
              () => (replayed.length >= missed.length ? true : undefined),
              10_000,
              'the replay',
            );
            resume.close();
            assert.deepEqual(
              replayed.map((e) => e.type).filter((t) => t !== 'ADDED'),
              [],
            );
            assert.deepEqual(replayed.map((e) => e.object.metadata.name).sort(), missed.sort());

            const watch = await openWatch(
              target,
              `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${list.metadata.resourceVersion}`,
              (e) => {
                watcherLastSeen = Math.max(watcherLastSeen, Number(e.object.metadata.resourceVersion));
              },
            );
            watcherLastSeen = Math.max(watcherLastSeen, Number(list.metadata.resourceVersion));
            const stop = { now: false };
            const before = acknowledged.size;
            const writers = Array.from({ length: WRITERS }, (_, w) =>
              storm(target, acknowledged, stop, run * 100 + w),
            );
            // The storm is under way (a first write of this run acknowledged) before the random
            // moment is drawn: a fixed window alone let a loaded machine kill a server that had
            // not yet served a write of the run.
            await eventually(() => (acknowledged.size > before ? true : undefined), 60_000, 'a first write');
            await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 200));
            server.child.kill('SIGKILL');
            stop.now = true;
            await Promise.all(writers);
            await server.exited;
            watch.close();
            target.agent.destroy();
          }
          const server = await startChildServer(
            ['--data-dir', dataDir, '--plane', 'hub'],
            kubeconfig,
            START_MS,
          );
          const target = await server.target('hub');
          // Stopped whatever the assertions say: a server left running kept the test file alive.
          try {
            const highest = Math.max(...[...acknowledged.values()].map(Number));
            const next = JSON.parse(
              (
                await call(target, 'POST', '/api/v1/namespaces/default/configmaps', {
                  metadata: { name: 'after' },
                })
              ).body,
            );
            assert.ok(
              Number(next.metadata.resourceVersion) > highest,
              'revisions continue after the last acknowledged one',
            );
            assert.ok(acknowledged.size > RUNS, `the storm wrote (${acknowledged.size} acknowledged)`);
          } finally {
            server.child.kill('SIGTERM');
            await server.exited;
            target.agent.destroy();
          }
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      },
    );
});

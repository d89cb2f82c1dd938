/**
 * `netpresence up`'s own clients reach its API server over the in-process transport
 * (src/fleet/in-process-transport.ts): the manager, the engine, the cells and the data plane in
 * the controller worker, the stand-ins on the main thread. Over TCP every watch and kept-alive
 * connection held two descriptors in the fleet's process, about 29 per project plane, and the
 * 10,000-binding fleet stopped at its open-file limit. Here, twenty more project planes engaged by
 * every controller set cost the fleet no descriptor per plane.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { hubNamespaceName } from '../../src/apis/common/upstream.ts';
import { eventually } from '../support/apiserver.ts';
import { allWithin, ALPHA, get, KINDS, startFixtureF, type FleetFixture } from '../support/fleet.ts';

const MORE_PROJECTS = 20;

/** The fleet process's open descriptors. */
const descriptorsOf = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

describe('the fleet over its in-process transport', () => {
  let f: FleetFixture;
  before(async () => {
    f = await startFixtureF();
  });
  after(async () => f?.dispose());

  it(`holds as many descriptors with ${MORE_PROJECTS} more project planes engaged as before`, async (t) => {
    const pid = f.fleet.child.pid!;
    const prefixed = async (context: string) =>
      typeof (await get(f, context, 'networks', 'vpc', 'default'))?.status?.ipam?.ipv6Prefix === 'string';
    // The manager has engaged project-alpha's plane: its Network holds a prefix.
    await allWithin(30_000, { 'vpc of project-alpha holds a prefix': () => prefixed(ALPHA) });
    const before = descriptorsOf(pid);

    const names = Array.from({ length: MORE_PROJECTS }, (_, i) => `fd-${i}`);
    for (const name of names)
      await f.client('platform', KINDS.projects).create({
        metadata: { name },
        spec: { ownerRef: { kind: 'Organization', name: 'acme' } },
      });
    for (const name of names) {
      const networks = await eventually(
        () => {
          try {
            return f.client(`project-${name}`, KINDS.networks);
          } catch {
            return undefined; // the kubeconfig names the plane once it is provisioned
          }
        },
        60_000,
        `the kubeconfig naming project-${name}`,
      );
      await eventually(
        () =>
          networks
            .create({ metadata: { name: 'vpc', namespace: 'default' }, spec: { ipam: { mode: 'Auto' } } })
            .catch(() => undefined),
        60_000,
        `Network vpc in project-${name}`,
      );
    }
    // Every new plane engaged by the manager (a prefix for its Network), the hub namespace
    // written by the stand-ins and carried to cell-a by the engine.
    await allWithin(
      120_000,
      Object.fromEntries(
        names.flatMap((name) => [
          [`vpc of project-${name} holds a prefix`, () => prefixed(`project-${name}`)],
          [
            `project-${name}'s hub namespace is on cell-a`,
            async () => {
              const ns = await get(f, `project-${name}`, 'namespaces', 'default');
              return (
                ns && (await get(f, 'cell-a', 'namespaces', hubNamespaceName(ns.metadata.uid))) !== undefined
              );
            },
          ],
        ]),
      ),
    );
    const after = descriptorsOf(pid);
    t.diagnostic(`descriptors: ${before} with one project plane, ${after} with ${MORE_PROJECTS + 1}`);
    // Over TCP this was about 29 per plane (580 here); a few may come and go (a log, a file
    // written), none per plane.
    assert.ok(
      after - before < MORE_PROJECTS,
      `the fleet held ${before} descriptors with one project plane and ${after} with ${MORE_PROJECTS + 1}`,
    );
  });
});

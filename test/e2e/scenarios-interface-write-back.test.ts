/**
 * The interface write-back on fixture K (scenarios.md §14, S125): the cell controllers of
 * `cell-a` with the hub, and the manager's interface projector, against the embedded API server.
 * Objects another controller would write (the interfaces, the Network) are written by the test.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { interfaceWriteBackController } from '../../src/controllers/cell/interface-write-back.ts';
import { locationIdentityController } from '../../src/controllers/cell/location-identity.ts';
import { interfaceProjectorController } from '../../src/controllers/hub/interface-projector.ts';
import type { RunnableController } from '../../src/runtime/controller.ts';
import { INTERFACES } from '../../src/controllers/cell/cell-context.ts';
import { NAMESPACES } from '../../src/runtime/resource-ids.ts';
import { ALPHA, CELL_A, startFixtureK, until, VPC, type CellScenario } from '../support/cell-fixtures.ts';
import { NETWORKS, planeOf } from '../support/project-fixtures.ts';

describe('interface write-back on fixture K', () => {
  let k: CellScenario | undefined;
  let projector: RunnableController | undefined;
  afterEach(async () => {
    await projector?.stop();
    projector = undefined;
    await k?.stop();
    k = undefined;
  });

  /** An interface `name` in `namespace` on cell-a, held by claim `name`, as the claim controller writes it. */
  async function boundInterface(scenario: CellScenario, namespace: string, name: string) {
    await scenario.claims.create({ metadata: { name, namespace }, spec: { network: { name: VPC } } });
    await scenario.interfaces.create({
      metadata: { name, namespace },
      spec: {
        network: { name: VPC },
        claimRef: { name },
        addresses: [{ family: 'IPv6', address: 'fd20::1:0:0/96', gateway: 'fd20::1', primary: true }],
      },
    });
  }

  it('S125 only hub namespaces are written back', async () => {
    k = await startFixtureK({ controllers: false, hub: true });
    const scenario = k;
    assert.equal(await k.s.hubNamespace(ALPHA, 'default'), k.H);
    await k.s.client(planeOf(ALPHA), NETWORKS).create({
      metadata: { name: VPC, namespace: 'default' },
      spec: { ipam: { mode: 'Auto' } },
    });
    await k.namespaces.create({ metadata: { name: 'local' } });
    // A hub namespace of the same name exists, so only the cell namespace's missing labels keep
    // the interface from being written back.
    await k.s.client('hub', NAMESPACES).create({ metadata: { name: 'local' } });
    await boundInterface(k, 'local', 'local-eth0');
    // The same in H, so the test sees the controllers write what they do write.
    await boundInterface(k, k.H, 'web-0-eth0');
    await k.startCell([locationIdentityController, interfaceWriteBackController]);
    projector = interfaceProjectorController.build(k.s.ctx);
    await projector.start();

    const hubCopies = k.s.client('hub', INTERFACES);
    const projectCopies = k.s.client(planeOf(ALPHA), INTERFACES);
    await until(
      async () =>
        (await hubCopies.get(`web-0-eth0.${CELL_A}`, scenario.H)) !== undefined &&
        (await projectCopies.get(`web-0-eth0.${CELL_A}`, 'default')) !== undefined,
      15_000,
      'the copies of H/web-0-eth0',
    );
    const onHub = (await hubCopies.list()).items.map((copy) => copy.metadata.name);
    const inProject = (await projectCopies.list()).items.map((copy) => copy.metadata.name);
    assert.deepEqual(onHub, [`web-0-eth0.${CELL_A}`]);
    assert.deepEqual(inProject, [`web-0-eth0.${CELL_A}`]);
  });
});

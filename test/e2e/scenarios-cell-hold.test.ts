/**
 * Context hold scenarios (scenarios.md §12, S101–S103): a propagated context stays while an
 * interface on its network holds addresses, and goes once the last one is gone.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { NetworkContext } from '../../src/apis/networking/v1alpha/network-context.ts';
import type { NetworkInterface } from '../../src/apis/networking/v1alpha/network-interface.ts';
import { BY_NETWORK, cellView, networkValue } from '../../src/controllers/cell/cell-context.ts';
import {
  contextHoldController,
  contextsOfInterface,
  holdContext,
} from '../../src/controllers/cell/context-hold.ts';
import { locationIdentityController } from '../../src/controllers/cell/location-identity.ts';
import { Store } from '../../src/runtime/store.ts';
import {
  bound,
  C,
  contextSpec,
  createClaim,
  createContext,
  settle,
  startFixtureK,
  until,
  WITHIN,
  type CellScenario,
} from '../support/cell-fixtures.ts';

const IN_USE = 'networking.datumapis.com/networkcontext-in-use';

let k: CellScenario | undefined;
afterEach(async () => {
  await k?.stop();
  k = undefined;
});

async function inUse(fixture: CellScenario, name: string): Promise<boolean> {
  return (await fixture.contexts.get(name, fixture.H))?.metadata.finalizers?.includes(IN_USE) ?? false;
}

/** Retain claim keep-eth0 bound, then deleted: its interface is retained. */
async function retainedInterface(fixture: CellScenario): Promise<NetworkInterface> {
  await createClaim(fixture, 'keep-eth0', { reclaimPolicy: 'Retain' });
  await bound(fixture, 'keep-eth0');
  await until(() => inUse(fixture, C), WITHIN, 'C to carry networkcontext-in-use');
  await fixture.claims.delete('keep-eth0', fixture.H);
  await until(
    async () => (await fixture.interfaces.get('keep-eth0', fixture.H))?.status?.phase === 'Available',
    WITHIN,
    'keep-eth0 to be retained',
  );
  return (await fixture.interfaces.get('keep-eth0', fixture.H))!;
}

describe('context hold (fixture K)', () => {
  it('S101 the hold keeps a context while interfaces exist', async () => {
    k = await startFixtureK();
    await createClaim(k, 'keep-eth0', { reclaimPolicy: 'Retain' });
    await bound(k, 'keep-eth0');
    await until(() => inUse(k!, C), WITHIN, 'C to carry networkcontext-in-use');
    await k.contexts.delete(C, k.H);
    await settle(k, 'context-hold');
    const terminating = await k.contexts.get(C, k.H);
    assert.ok(terminating?.metadata.deletionTimestamp, 'C stays, terminating');
    await k.claims.delete('keep-eth0', k.H);
    await until(
      async () => (await k!.interfaces.get('keep-eth0', k!.H))?.status?.phase === 'Available',
      WITHIN,
      'the interface to be retained',
    );
    await settle(k, 'context-hold');
    assert.ok(await k.contexts.get(C, k.H), 'C still stays');
    await k.interfaces.delete('keep-eth0', k.H);
    await until(async () => !(await k!.contexts.get(C, k!.H)), WITHIN, 'C to go');
  });

  it('S102 a late look is corrected', async () => {
    k = await startFixtureK();
    const iface = await retainedInterface(k);
    await k.contexts.delete(C, k.H);
    await k.stopCell();
    await k.interfaces.patchMerge('keep-eth0', k.H, { metadata: { finalizers: ['test.netpresence/keep'] } });
    await k.interfaces.delete('keep-eth0', k.H);
    // The hold as a store that has not yet seen the interface terminate evaluates it.
    const lateInterfaces = new Store<NetworkInterface>();
    lateInterfaces.addIndex(BY_NETWORK, (object) => [
      networkValue(object.metadata.namespace, object.spec.network.name),
    ]);
    lateInterfaces.replace([iface]);
    const contexts = new Store<NetworkContext>();
    contexts.replace([(await k.contexts.get(C, k.H))!]);
    await holdContext(k.H, C, { contexts, interfaces: lateInterfaces, contextClient: k.contexts });
    assert.ok(await inUse(k, C), 'the late look keeps the finalizer');
    await k.startCell([locationIdentityController, contextHoldController]);
    await k.interfaces.patchMerge('keep-eth0', k.H, { metadata: { finalizers: null } });
    await until(
      async () => !(await k!.interfaces.get('keep-eth0', k!.H)),
      WITHIN,
      'the interface to be gone',
    );
    await until(async () => !(await k!.contexts.get(C, k!.H)), WITHIN, 'the terminating C to disappear');
  });

  it('S103 resolved identity and old locations', async () => {
    k = await startFixtureK();
    const eu = 'vpc-eu-west-1';
    await createContext(k, eu, contextSpec({ location: { name: 'eu-west-1' } }));
    const iface = await retainedInterface(k);
    const view = cellView(k.cell!.ctx);
    await until(() => view.contexts.store.list(k!.H).length === 2, WITHIN, 'both contexts in the store');
    const keys = contextsOfInterface(
      k.cell!.ctx.identity,
      view.contexts.store,
    )({ type: 'MODIFIED', object: iface });
    assert.ok(keys.includes(`${k.H}/${C}`), 'an interface event maps to C');
    await until(() => inUse(k!, eu), WITHIN, 'vpc-eu-west-1 to be held too');
    await k.contexts.delete(eu, k.H);
    await settle(k, 'context-hold');
    assert.ok(await k.contexts.get(eu, k.H), 'vpc-eu-west-1 stays, terminating');
    await k.interfaces.delete('keep-eth0', k.H);
    await until(
      async () => !(await k!.contexts.get(eu, k!.H)) && !(await inUse(k!, C)),
      WITHIN,
      'both contexts to lose the finalizer',
    );
    assert.ok(await k.contexts.get(C, k.H), 'C itself stays');
  });
});

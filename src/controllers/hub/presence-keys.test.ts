import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NetworkBinding } from '../../apis/networking/v1alpha/network-binding.ts';
import { Store } from '../../runtime/store.ts';
import {
  BY_CONTEXT_NAME,
  BY_PAIR,
  bindingIndexes,
  contextNameValue,
  keysIn,
  pairValue,
  presenceKeyFromString,
  presenceKeyString,
} from './presence-keys.ts';

function binding(name: string, namespace: string, network: string, location: string): NetworkBinding {
  return {
    metadata: {
      name,
      namespace,
      resourceVersion: '1',
      labels: { 'networking.datumapis.com/network': 'ignored' },
    },
    spec: { network: { name: network }, location: { name: location } },
  };
}

function storeOf(...bindings: NetworkBinding[]): Store<NetworkBinding> {
  const store = new Store<NetworkBinding>();
  for (const [index, fn] of Object.entries(bindingIndexes)) store.addIndex(index, fn);
  for (const object of bindings) store.apply({ type: 'ADDED', object });
  return store;
}

describe('presence keys', () => {
  it('round-trip through their string form, whatever the names hold', () => {
    const key = { hubNamespace: 'ns-1', network: 'a/b"c', location: 'x,y' };
    assert.deepEqual(presenceKeyFromString(presenceKeyString(key)), key);
    assert.throws(() => presenceKeyFromString('["only","two"]'), /JSON array/);
  });

  it('keep two pairs that derive one context name apart, and find both by that name', () => {
    const store = storeOf(
      binding('b1', 'h', 'web-us', 'central-1'),
      binding('b2', 'h', 'web', 'us-central-1'),
    );
    assert.deepEqual(
      keysIn(store, BY_CONTEXT_NAME, contextNameValue('h', 'web-us-central-1')).map(presenceKeyString).sort(),
      [
        presenceKeyString({ hubNamespace: 'h', network: 'web', location: 'us-central-1' }),
        presenceKeyString({ hubNamespace: 'h', network: 'web-us', location: 'central-1' }),
      ].sort(),
    );
  });

  it('come from spec, never labels, once per pair', () => {
    const store = storeOf(binding('web', 'h', 'vpc', 'l'), binding('lb', 'h', 'vpc', 'l'));
    const key = { hubNamespace: 'h', network: 'vpc', location: 'l' };
    assert.deepEqual(keysIn(store, BY_PAIR, pairValue(key)), [key]);
    assert.deepEqual(keysIn(store, BY_PAIR, pairValue({ ...key, network: 'ignored' })), []);
  });
});

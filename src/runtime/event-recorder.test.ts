import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import type { KubeObject, ResourceClient } from '../client/types.ts';
import { FakeClock } from './clock.ts';
import { eventRecorder } from './event-recorder.ts';

function recorderWith(create: (object: KubeObject) => Promise<KubeObject>) {
  const client = { create } as unknown as ResourceClient;
  return eventRecorder({
    client,
    controller: 'location-publisher',
    instance: 'host-1',
    clock: new FakeClock(Date.parse('2030-01-01T00:00:00Z')),
    log: pino({ level: 'silent' }),
  });
}

describe('event recorder', () => {
  it('records an events.k8s.io Event regarding the object, in default for a cluster-scoped one', async () => {
    const created: KubeObject[] = [];
    const recorder = recorderWith(async (object) => (created.push(object), object));
    const location = {
      apiVersion: 'networking.datumapis.com/v1alpha',
      kind: 'Location',
      metadata: { name: 'nowhere', uid: 'u', resourceVersion: '7' },
    };
    await recorder.record(location, {
      type: 'Warning',
      reason: 'MissingCityCode',
      action: 'PublishLocation',
      note: 'n',
    });
    const [event] = created;
    assert.equal(event.metadata.namespace, 'default');
    assert.match(event.metadata.name!, /^nowhere\.[0-9a-f]{16}$/);
    assert.equal(event.eventTime, '2030-01-01T00:00:00.000000Z');
    assert.equal(event.reportingController, 'netpresence.datumapis.com/location-publisher');
    assert.deepEqual(event.regarding, {
      apiVersion: 'networking.datumapis.com/v1alpha',
      kind: 'Location',
      name: 'nowhere',
      uid: 'u',
      resourceVersion: '7',
    });
    assert.deepEqual(
      [event.type, event.reason, event.action, event.note],
      ['Warning', 'MissingCityCode', 'PublishLocation', 'n'],
    );
  });

  it('never throws when the write fails', async () => {
    const recorder = recorderWith(() => Promise.reject(new Error('down')));
    await recorder.record(
      { metadata: { name: 'x', namespace: 'h' } },
      { type: 'Warning', reason: 'r', action: 'a', note: 'n' },
    );
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import type { KubeObject, ResourceId } from '../client/types.ts';
import type { PlaneAccess } from '../runtime/manager-context.ts';
import type { EventRecorder, RecordedEvent } from '../runtime/event-recorder.ts';
import { FakeClock } from '../runtime/clock.ts';
import type { InformerEvent } from '../runtime/informer-contract.ts';
import { rootLogger } from '../runtime/logging.ts';
import { FakeResource } from '../../test/support/fake-resource-client.ts';
import { KindNotServedError, KindResolver } from './kinds.ts';
import { TemplateKinds, type TemplateKind } from './template-kinds.ts';

const NC = 'networking.datumapis.com/v1alpha';

/** Serves NetworkContext only; Subnet becomes served when `serveSubnet` is set. */
class FakeResolver extends KindResolver {
  serveSubnet = false;
  override async resolve(_kubeConfig: KubeConfig, apiVersion: string, kind: string): Promise<ResourceId> {
    if (kind === 'NetworkContext' || (kind === 'Subnet' && this.serveSubnet))
      return {
        group: 'networking.datumapis.com',
        version: 'v1alpha',
        kind,
        plural: `${kind.toLowerCase()}s`,
        namespaced: true,
      };
    throw new KindNotServedError(apiVersion, kind, 'https://hub');
  }
}

function setup() {
  const clock = new FakeClock();
  const resources = new Map<string, FakeResource>();
  const hub = {
    name: 'hub',
    kubeConfig: new KubeConfig(),
    client(id: ResourceId) {
      let resource = resources.get(id.plural);
      if (!resource) resources.set(id.plural, (resource = new FakeResource(id)));
      return resource.client();
    },
  } as unknown as PlaneAccess;
  const recorded: { regarding: string; event: RecordedEvent }[] = [];
  const recorder: EventRecorder = {
    async record(regarding, event) {
      recorded.push({ regarding: regarding.metadata.name!, event });
    },
  };
  const kinds = new FakeResolver();
  const templates = new TemplateKinds({ hub, kinds, clock, log: rootLogger({ level: 'silent' }), recorder });
  return { templates, kinds, recorded };
}

function policyEvent(
  type: InformerEvent['type'],
  name: string,
  ...selected: string[]
): InformerEvent<KubeObject> {
  return {
    type,
    object: {
      metadata: { name },
      spec: { resourceSelectors: selected.map((kind) => ({ apiVersion: NC, kind })) },
    },
  };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('template kinds', () => {
  it('watch a kind while some policy or binding names it, and stop when none does', async () => {
    const { templates } = setup();
    const seen: string[] = [];
    templates.onReady((kind: TemplateKind) => {
      seen.push(`ready ${kind.kind}`);
      return () => seen.push(`gone ${kind.kind}`);
    });
    templates.observe('cpp/a', policyEvent('ADDED', 'a', 'NetworkContext'), true);
    const binding: InformerEvent<KubeObject> = {
      type: 'ADDED',
      object: {
        metadata: { name: 'b' },
        spec: { resource: { apiVersion: NC, kind: 'NetworkContext', name: 'x' } },
      },
    };
    templates.observe('rb/ns/b', binding, false);
    await settle();
    assert.deepEqual(seen, ['ready NetworkContext']);
    assert.ok(templates.get(NC, 'NetworkContext'));

    templates.observe('cpp/a', policyEvent('DELETED', 'a'), true);
    await settle();
    assert.ok(templates.get(NC, 'NetworkContext'), 'the binding still names it');
    templates.observe('rb/ns/b', { ...binding, type: 'DELETED' }, false);
    await settle();
    assert.equal(templates.get(NC, 'NetworkContext'), undefined);
    assert.deepEqual(seen, ['ready NetworkContext', 'gone NetworkContext']);
    await templates.stop();
  });

  it('records KindNotServed on each policy naming an unserved kind, and resolves it when discovery changes', async () => {
    const { templates, kinds, recorded } = setup();
    templates.observe('cpp/a', policyEvent('ADDED', 'a', 'Subnet'), true);
    await settle();
    templates.observe('cpp/b', policyEvent('ADDED', 'b', 'Subnet'), true);
    await settle();
    assert.deepEqual(
      recorded.map((r) => [r.regarding, r.event.type, r.event.reason]),
      [
        ['a', 'Warning', 'KindNotServed'],
        ['b', 'Warning', 'KindNotServed'],
      ],
    );
    assert.equal(templates.get(NC, 'Subnet'), undefined);
    kinds.serveSubnet = true;
    templates.discoveryChanged();
    await settle();
    assert.ok(templates.get(NC, 'Subnet'));
    await templates.stop();
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { interfaceCopyName, interfaceOfCopyName } from '../../apis/networking/v1alpha/interface-copy.ts';
import type { NetworkInterface } from '../../apis/networking/v1alpha/network-interface.ts';
import type { ResourceClient } from '../../client/types.ts';
import { copySpec, copyStatus, writeCopy, type CopyContent, type InterfaceCopy } from './interface-copy.ts';

/** A client that records every write; a patch answers with `stored` at a new revision. */
function recordingClient(stored?: InterfaceCopy) {
  const writes: { verb: string; body: unknown; subresource?: string }[] = [];
  let revision = 10;
  const client = {
    create: async (object: InterfaceCopy) => {
      writes.push({ verb: 'create', body: object });
      return {
        ...object,
        metadata: { ...object.metadata, resourceVersion: String(++revision) },
        status: { conditions: [] },
      };
    },
    patchMerge: async (
      name: string,
      namespace: string | undefined,
      body: unknown,
      options?: { subresource?: string },
    ) => {
      writes.push({ verb: 'patch', body, subresource: options?.subresource });
      return {
        ...stored,
        metadata: { ...stored?.metadata, name, namespace, resourceVersion: String(++revision) },
      } as InterfaceCopy;
    },
  } as unknown as ResourceClient<InterfaceCopy>;
  return { client, writes };
}

const desired: CopyContent = {
  labels: { 'networking.datumapis.com/source-cell': 'cell-a' },
  spec: { network: { name: 'vpc' }, mtu: 1460 },
  status: { phase: 'Bound', conditions: [] },
};

const held = (overrides: Partial<InterfaceCopy> = {}): InterfaceCopy => ({
  metadata: {
    name: 'web-0.cell-a',
    namespace: 'ns-u',
    resourceVersion: '5',
    labels: { 'networking.datumapis.com/source-cell': 'cell-a' },
  },
  // The API server's default, which the copy never claims to carry.
  spec: { network: { name: 'vpc' }, mtu: 1460, attachmentMode: 'Netns' },
  status: { conditions: [], phase: 'Bound' },
  ...overrides,
});

describe('interface copies', () => {
  it('a copy is named <interface>.<cell>, and only its own cell reads it back', () => {
    assert.equal(interfaceCopyName('web-0-eth0', 'cell-a'), 'web-0-eth0.cell-a');
    assert.equal(interfaceOfCopyName('web-0-eth0.cell-a', 'cell-a'), 'web-0-eth0');
    assert.equal(interfaceOfCopyName('web-0-eth0.cell-b', 'cell-a'), undefined);
    assert.equal(interfaceOfCopyName('.cell-a', 'cell-a'), undefined);
  });

  it('shows the spec without claimRef and attachmentMode, and only phase and conditions', () => {
    const iface = {
      metadata: { name: 'web-0' },
      spec: {
        network: { name: 'vpc' },
        claimRef: { name: 'web-0' },
        attachmentMode: 'Hypervisor',
        interfaceName: 'eth0',
      },
      status: { phase: 'Bound', conditions: [], networkContextRef: { name: 'vpc-us-central-1' } },
    } as unknown as NetworkInterface;
    assert.deepEqual(copySpec(iface), { network: { name: 'vpc' }, interfaceName: 'eth0' });
    assert.deepEqual(copyStatus(iface as never), { phase: 'Bound', conditions: [] });
  });

  it('writes nothing when the held copy already shows the source', async () => {
    const { client, writes } = recordingClient();
    await writeCopy(client, held(), 'web-0.cell-a', 'ns-u', desired);
    assert.deepEqual(writes, []);
  });

  it('restores an edited copy in one metadata-and-spec write, dropping labels it does not own', async () => {
    const { client, writes } = recordingClient(held());
    const edited = held();
    edited.metadata.labels = { ...edited.metadata.labels, x: 'y' };
    edited.spec = { ...edited.spec, mtu: 1300 };
    await writeCopy(client, edited, 'web-0.cell-a', 'ns-u', desired);
    assert.deepEqual(writes, [
      {
        verb: 'patch',
        body: { metadata: { resourceVersion: '5', labels: { x: null } }, spec: { mtu: 1460 } },
        subresource: undefined,
      },
    ]);
  });

  it('creates an absent copy, then writes its status', async () => {
    const { client, writes } = recordingClient();
    await writeCopy(client, undefined, 'web-0.cell-a', 'ns-u', desired);
    assert.equal(writes.length, 2);
    assert.equal(writes[0].verb, 'create');
    assert.deepEqual(writes[1], {
      verb: 'patch',
      body: { metadata: { resourceVersion: '11' }, status: { phase: 'Bound' } },
      subresource: 'status',
    });
  });
});

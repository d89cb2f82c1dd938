import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { IPClaim } from '../../apis/ipam/v1alpha1/ip-claim.ts';
import { networkScope } from '../../apis/ipam/v1alpha1/scope.ts';
import { statusErrorFrom, type Status } from '../../client/errors.ts';
import type { ResourceClient } from '../../client/types.ts';
import type { ObjectStore } from '../../runtime/informer-contract.ts';
import {
  heldClaim,
  classifyIpamFailure,
  holdScopeRange,
  isProjectNamespaceMissing,
  releaseScopeRange,
  type ScopeRangeRequest,
} from './ipam-access.ts';

const refusal = (code: number, status: Omit<Status, 'code'>) => statusErrorFrom(code, { ...status, code });
const withCause = (code: number, reason: string, type: string, message = `refused: ${type}`, name?: string) =>
  refusal(code, { reason, message, details: { name, causes: [{ reason: type, message }] } });

describe('classifying a refused IPAM create (scenario 74)', () => {
  const what = 'an IPv4 address';
  const cases: [string, unknown, string, string][] = [
    [
      '507 Exhausted naming its pool',
      withCause(507, 'InsufficientStorage', 'Exhausted', 'IPPool "p" has no free /32 left', 'p'),
      'AddressPoolExhausted',
      'No address is left for an IPv4 address: IPPool "p" is exhausted',
    ],
    [
      '507 without causes',
      refusal(507, { reason: 'InsufficientStorage', message: 'full' }),
      'AddressPoolExhausted',
      'No address is left for an IPv4 address: full',
    ],
    [
      '409 AllocationRetained',
      withCause(409, 'Conflict', 'AllocationRetained', 'held'),
      'RetainedAddressConflict',
      'Another allocation still holds the name for an IPv4 address: held',
    ],
    [
      '409 ClaimExists',
      withCause(409, 'AlreadyExists', 'ClaimExists', 'exists'),
      'RetainedAddressConflict',
      'Another allocation still holds the name for an IPv4 address: exists',
    ],
    ...[
      'ClassNotFound',
      'NoDefaultClass',
      'NoOfferingPool',
      'PrefixLengthRejected',
      'ScopeRolesMissing',
      'NoProjectScope',
    ].map((type): [string, unknown, string, string] => [
      `400 ${type}`,
      withCause(400, 'BadRequest', type, 'no'),
      'AddressAllocationRejected',
      'IPAM would not allocate an IPv4 address: no',
    ]),
    [
      '400 with an unknown cause',
      withCause(400, 'BadRequest', 'Mystery', 'odd'),
      'AllocationFailed',
      'Allocating an IPv4 address failed: odd',
    ],
    [
      '500',
      refusal(500, { reason: 'InternalError', message: 'boom' }),
      'AllocationFailed',
      'Allocating an IPv4 address failed: boom',
    ],
    [
      'a network error',
      new Error('connect ECONNREFUSED'),
      'AllocationFailed',
      'Allocating an IPv4 address failed: connect ECONNREFUSED',
    ],
  ];
  for (const [name, err, reason, message] of cases) {
    it(`${name} → ${reason}`, () => {
      assert.deepEqual(classifyIpamFailure(err, what), { reason, message });
    });
  }

  it('reads a cause spelled `type` as well as `reason`', () => {
    const err = refusal(507, {
      reason: 'InsufficientStorage',
      message: 'x',
      details: { name: 'p', causes: [{ type: 'Exhausted', message: 'x' } as never] },
    });
    assert.equal(classifyIpamFailure(err, what).reason, 'AddressPoolExhausted');
  });
});

describe('recognising a missing project namespace', () => {
  const notFound = (details?: Status['details']) =>
    refusal(404, { reason: 'NotFound', message: 'not found', ...(details && { details }) });

  it('only from a 404 naming exactly that namespace as a core namespaces object', () => {
    assert.equal(
      isProjectNamespaceMissing(notFound({ group: '', kind: 'namespaces', name: 'default' }), 'default'),
      true,
    );
    assert.equal(
      isProjectNamespaceMissing(notFound({ kind: 'namespaces', name: 'default' }), 'default'),
      true,
    );
    assert.equal(
      isProjectNamespaceMissing(
        notFound({ group: 'ipam.miloapis.com', kind: 'ipclaims', name: 'default' }),
        'default',
      ),
      false,
    );
    assert.equal(isProjectNamespaceMissing(notFound(), 'default'), false);
    assert.equal(
      isProjectNamespaceMissing(notFound({ group: '', kind: 'namespaces', name: 'other' }), 'default'),
      false,
    );
    assert.equal(isProjectNamespaceMissing(new Error('404'), 'default'), false);
  });
});

function storeOf(claims: IPClaim[]): ObjectStore<IPClaim> {
  const find = (ns: string | undefined, name: string) =>
    claims.find((c) => c.metadata.namespace === ns && c.metadata.name === name);
  return { get: find, list: () => claims, byIndex: () => [] };
}

function clientWith(
  overrides: Partial<ResourceClient<IPClaim>>,
): ResourceClient<IPClaim> & { created: IPClaim[] } {
  const created: IPClaim[] = [];
  const unexpected = (verb: string) => () => Promise.reject(new Error(`unexpected ${verb}`));
  return {
    id: {
      group: 'ipam.miloapis.com',
      version: 'v1alpha1',
      kind: 'IPClaim',
      plural: 'ipclaims',
      namespaced: true,
    },
    created,
    get: unexpected('get'),
    list: unexpected('list'),
    create: async (claim: IPClaim) => {
      created.push(claim);
      return {
        ...claim,
        status: { phase: 'Bound', allocatedCIDR: 'fd20::/48', poolRef: { name: 'pool-vpc' } },
      };
    },
    update: unexpected('update'),
    updateStatus: unexpected('updateStatus'),
    patchMerge: unexpected('patchMerge'),
    patchJson: unexpected('patchJson'),
    apply: unexpected('apply'),
    delete: unexpected('delete'),
    watch: unexpected('watch'),
    ...overrides,
  };
}

const request: ScopeRangeRequest = {
  className: 'datum-network-v6',
  claimName: 'network-u1',
  namespace: 'default',
  scope: networkScope('vpc'),
  subject: 'this network',
  namespaceReason: 'ProjectNamespaceNotFound',
  unsupportedReason: 'RangeUnsupported',
};

const bound = (overrides: Partial<IPClaim> = {}): IPClaim => ({
  metadata: { name: 'network-u1', namespace: 'default' },
  spec: { className: 'datum-network-v6', target: 'ScopeRange', scope: networkScope('vpc') },
  status: { phase: 'Bound', allocatedCIDR: 'fd20::/48', poolRef: { name: 'pool-vpc' } },
  ...overrides,
});

describe('holding a scope range', () => {
  it('creates the range claim when the store has none', async () => {
    const client = clientWith({});
    const hold = await holdScopeRange({ project: 'p', claims: storeOf([]), client }, request);
    assert.deepEqual(hold, { held: true, cidr: 'fd20::/48', pool: 'pool-vpc' });
    assert.deepEqual(client.created, [
      {
        metadata: { name: 'network-u1', namespace: 'default' },
        spec: { className: 'datum-network-v6', target: 'ScopeRange', scope: networkScope('vpc') },
      },
    ]);
  });

  it('uses the claim the store holds without writing', async () => {
    const client = clientWith({});
    const hold = await holdScopeRange({ project: 'p', claims: storeOf([bound()]), client }, request);
    assert.deepEqual(hold, { held: true, cidr: 'fd20::/48', pool: 'pool-vpc' });
    assert.deepEqual(client.created, []);
  });

  it('after a refused create, uses the claim the API holds (a store behind a duplicate)', async () => {
    const client = clientWith({
      create: () => Promise.reject(withCause(409, 'AlreadyExists', 'ClaimExists')),
      get: async () => bound(),
    });
    assert.deepEqual(await holdScopeRange({ project: 'p', claims: storeOf([]), client }, request), {
      held: true,
      cidr: 'fd20::/48',
      pool: 'pool-vpc',
    });
  });

  it('reports a refusal classified for the class it asked for', async () => {
    const client = clientWith({
      create: () => Promise.reject(withCause(507, 'InsufficientStorage', 'Exhausted', 'full', 'root')),
      get: async () => undefined,
    });
    assert.deepEqual(await holdScopeRange({ project: 'p', claims: storeOf([]), client }, request), {
      held: false,
      reason: 'AddressPoolExhausted',
      message: 'No address is left for an address of class "datum-network-v6": IPPool "root" is exhausted',
    });
  });

  it('reports a missing project namespace with the caller’s reason', async () => {
    const client = clientWith({
      create: () =>
        Promise.reject(
          refusal(404, {
            reason: 'NotFound',
            message: 'namespaces "default" not found',
            details: { group: '', kind: 'namespaces', name: 'default' },
          }),
        ),
    });
    assert.deepEqual(await holdScopeRange({ project: 'p', claims: storeOf([]), client }, request), {
      held: false,
      reason: 'ProjectNamespaceNotFound',
      message:
        'Project "p" has no namespace "default" in its control plane, so no address space can be allocated for it',
    });
  });

  it('refuses a claim IPAM did not keep as a range, and one with no range allocated', async () => {
    const client = clientWith({});
    const address = bound({ spec: { className: 'datum-network-v6', target: 'Address' } });
    assert.deepEqual(await holdScopeRange({ project: 'p', claims: storeOf([address]), client }, request), {
      held: false,
      reason: 'RangeUnsupported',
      message:
        'IPAM did not keep the request for a range on claim "network-u1", so it cannot report the address space this network is drawn from',
    });
    const pending = bound({ status: { phase: 'Pending' } });
    assert.deepEqual(await holdScopeRange({ project: 'p', claims: storeOf([pending]), client }, request), {
      held: false,
      reason: 'AllocationFailed',
      message: 'IPAM allocated no address space for this network (phase "Pending")',
    });
  });
});

describe('releasing a scope range', () => {
  it('is done when the claim is deleted or already gone', async () => {
    assert.deepEqual(await releaseScopeRange(clientWith({ delete: async () => true }), 'default', 'c'), {
      released: true,
    });
    assert.deepEqual(await releaseScopeRange(clientWith({ delete: async () => false }), 'default', 'c'), {
      released: true,
    });
  });

  it('reports an occupied range with IPAM’s message', async () => {
    const occupied = refusal(409, {
      reason: 'Conflict',
      message: 'IPPool "x" still has 1 allocation(s) inside it',
    });
    assert.deepEqual(
      await releaseScopeRange(clientWith({ delete: () => Promise.reject(occupied) }), 'default', 'c'),
      {
        released: false,
        message: 'IPPool "x" still has 1 allocation(s) inside it',
      },
    );
  });

  it('throws anything else', async () => {
    const broken = refusal(500, { reason: 'InternalError', message: 'boom' });
    await assert.rejects(
      releaseScopeRange(clientWith({ delete: () => Promise.reject(broken) }), 'default', 'c'),
      /boom/,
    );
  });
});

describe('the claim a release targets', () => {
  it('is the claim status names, in the object namespace when status names none', () => {
    assert.deepEqual(heldClaim({ project: 'p', claimName: 'held' }, 'default', 'network-u1'), {
      namespace: 'default',
      claimName: 'held',
    });
    assert.deepEqual(
      heldClaim({ project: 'p', namespace: 'other', claimName: 'held' }, 'default', 'network-u1'),
      {
        namespace: 'other',
        claimName: 'held',
      },
    );
  });

  it('is the deterministic claim when status names none', () => {
    assert.deepEqual(heldClaim(undefined, 'default', 'network-u1'), {
      namespace: 'default',
      claimName: 'network-u1',
    });
    assert.deepEqual(heldClaim({ claimName: 'held' }, 'default', 'network-u1'), {
      namespace: 'default',
      claimName: 'network-u1',
    });
  });
});

/**
 * scenarios.md §1, API admission (S1–S6): what the generated CRDs make the embedded API server
 * accept, default and refuse, through the real HTTP API with client-node and kubectl. Each
 * plane holds the CRDs apis.md §0.1 installs there, and the project plane serves the embedded
 * IPAM with its default set, as the fleet composes it; a platform user identity, bound to a role
 * that leaves IPAM-owned writes out, stands for the clients of S6.
 */
import * as k8s from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/apiserver.ts';
import { CELL, HUB, installPlaneCrds, PLANES, PLATFORM, PROJECT } from '../support/crd-planes.ts';
import { serveIpam } from '../support/ipam-plane.ts';

const NETWORKING = { group: 'networking.datumapis.com', version: 'v1alpha' };
const IPAM = { group: 'ipam.miloapis.com', version: 'v1alpha1' };
const MERGE = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);

interface Cause {
  reason?: string;
  message: string;
  field?: string;
}

interface Refusal {
  code: number;
  reason: string;
  message: string;
  causes: Cause[];
}

async function refused(request: Promise<unknown>): Promise<Refusal> {
  try {
    await request;
  } catch (err) {
    if (!(err instanceof k8s.ApiException)) throw err;
    const body = (typeof err.body === 'string' ? JSON.parse(err.body) : err.body) as {
      reason: string;
      message: string;
      details?: { causes?: Cause[] };
    };
    return { code: err.code, reason: body.reason, message: body.message, causes: body.details?.causes ?? [] };
  }
  throw new Error('the request was accepted');
}

/** Asserts a 422 with a cause at `field` whose message is exactly `message`. */
function assertInvalid(refusal: Refusal, field: string, message: string): void {
  assert.equal(refusal.code, 422, refusal.message);
  assert.equal(refusal.reason, 'Invalid');
  assert.ok(
    refusal.causes.some((cause) => cause.field === field && cause.message === message),
    `no cause ${field}: ${message} in ${JSON.stringify(refusal.causes)}`,
  );
}

function seeded(...types: string[]) {
  return types.map((type) => ({
    type,
    status: 'Unknown',
    reason: 'Pending',
    message: 'Waiting for controller',
    lastTransitionTime: '1970-01-01T00:00:00Z',
  }));
}

type Obj = { metadata: { name: string }; spec: Record<string, any>; status?: Record<string, any> };

describe('API admission', () => {
  let t: TestServer;
  let admin: (plane: string) => k8s.CustomObjectsApi;
  let user: k8s.CustomObjectsApi;

  before(async () => {
    t = await startTestServer(PLANES);
    await installPlaneCrds(t);
    serveIpam(t.server.plane(PROJECT)!);
    admin = (plane) => t.kubeConfig(plane).makeApiClient(k8s.CustomObjectsApi);
    user = await platformUser(t);
  });
  after(async () => t.stop());

  describe('in the project plane', () => {
    const networks = () => ({ ...NETWORKING, namespace: 'default', plural: 'networks' });
    const createNetwork = (name: string, spec: object) =>
      admin(PROJECT).createNamespacedCustomObject({ ...networks(), body: { metadata: { name }, spec } });

    it('S1 Network defaults and seed', async () => {
      const vpc = (await createNetwork('vpc', { ipam: { mode: 'Auto' } })) as Obj;
      assert.deepEqual(vpc.spec.ipFamilies, ['IPv6']);
      assert.equal(vpc.spec.mtu, 1460);
      assert.deepEqual(vpc.status?.conditions, seeded('Ready'));

      const v4 = (await createNetwork('v4', { ipam: { mode: 'Auto' }, ipFamilies: ['IPv4'] })) as Obj;
      assert.deepEqual(v4.spec.ipFamilies, ['IPv4']);
      const patched = (await admin(PROJECT).patchNamespacedCustomObject(
        { ...networks(), name: 'v4', body: { spec: { ipFamilies: ['IPv4', 'IPv6'] } } },
        MERGE,
      )) as Obj;
      assert.deepEqual(patched.spec.ipFamilies, ['IPv4', 'IPv6']);
    });

    it('S2 Networks outside the MTU and family bounds are refused with 422', async () => {
      const auto = { mode: 'Auto' };
      const cases: [name: string, spec: object, field: string][] = [
        ['mtu-low', { ipam: auto, mtu: 1299 }, 'spec.mtu'],
        ['mtu-high', { ipam: auto, mtu: 8857 }, 'spec.mtu'],
        ['no-families', { ipam: auto, ipFamilies: [] }, 'spec.ipFamilies'],
        ['three-families', { ipam: auto, ipFamilies: ['IPv4', 'IPv6', 'IPv4'] }, 'spec.ipFamilies'],
      ];
      for (const [name, spec, field] of cases) {
        const refusal = await refused(createNetwork(name, spec));
        assert.equal(refusal.code, 422, name);
        assert.ok(
          refusal.causes.some((cause) => cause.field === field),
          `${name}: ${refusal.message}`,
        );
      }
      assertInvalid(
        await refused(createNetwork('twice', { ipam: auto, ipFamilies: ['IPv6', 'IPv6'] })),
        'spec.ipFamilies',
        'Invalid value: "array": Each address family may be listed at most once',
      );
    });

    it('S6 IPAM object rules: one of className and ipFamily, immutable spec, IPAM-owned writes', async () => {
      const claims = { ...IPAM, namespace: 'default', plural: 'ipclaims' };
      const createClaim = (name: string, spec: object) =>
        user.createNamespacedCustomObject({ ...claims, body: { metadata: { name }, spec } });
      const oneOf = 'Invalid value: "object": exactly one of className and ipFamily must be set';
      assertInvalid(
        await refused(createClaim('both', { className: 'datum-endpoint-v6', ipFamily: 'IPv6' })),
        'spec',
        oneOf,
      );
      assertInvalid(await refused(createClaim('neither', {})), 'spec', oneOf);

      await createClaim('web-0-f-ipv6', {
        className: 'datum-endpoint-v6',
        scope: {
          network: { apiGroup: 'networking.datumapis.com', kind: 'Network', name: 'vpc' },
          location: { apiGroup: 'networking.datumapis.com', kind: 'Location', name: 'us-central-1' },
        },
      });
      const changes: object[] = [
        { className: 'datum-endpoint-v4' },
        { target: 'ScopeRange' },
        { reclaimPolicy: 'Retain' },
        { prefixLength: 112 },
        { scope: { network: { name: 'other' } } },
      ];
      for (const spec of changes) {
        assertInvalid(
          await refused(
            user.patchNamespacedCustomObject({ ...claims, name: 'web-0-f-ipv6', body: { spec } }, MERGE),
          ),
          'spec',
          'Invalid value: "object": IPClaim spec is immutable',
        );
      }

      const statusWrite = await refused(
        user.patchNamespacedCustomObjectStatus(
          {
            ...claims,
            name: 'web-0-f-ipv6',
            body: { status: { phase: 'Bound', allocatedCIDR: 'fd20::1:0:0/96' } },
          },
          MERGE,
        ),
      );
      assert.equal(statusWrite.code, 403);
      assert.equal(statusWrite.reason, 'Forbidden');

      const allocation = await refused(
        user.createNamespacedCustomObject({
          ...IPAM,
          namespace: 'default',
          plural: 'ipallocations',
          body: {
            metadata: { name: 'web-0-f-ipv6' },
            spec: { poolRef: { name: 'datum-endpoint-v6-vpc' }, cidr: 'fd20::1:0:0/96', ipFamily: 'IPv6' },
          },
        }),
      );
      assert.equal(allocation.code, 403);
      assert.equal(allocation.reason, 'Forbidden');
    });

    it('S6 IPAM object rules: IPPool CIDRs with host bits set or overlapping a root pool answer 422 on spec.cidr', async () => {
      const pools = { ...IPAM, plural: 'ippools' };
      const cases: [name: string, cidr: string][] = [
        ['host-bits', 'fd20::1/48'],
        ['overlapping-root', 'fd20:1::/32'],
      ];
      for (const [name, cidr] of cases) {
        const request = admin(PROJECT).createClusterCustomObject({
          ...pools,
          body: { metadata: { name }, spec: { className: 'datum-network-v6', cidr } },
        });
        const refusal = await refused(request);
        assert.equal(refusal.code, 422, `IPPool ${name} (${cidr}): ${refusal.message}`);
        assert.ok(
          refusal.causes.some((cause) => cause.field === 'spec.cidr'),
          refusal.message,
        );
      }
    });
  });

  describe('on the hub', () => {
    const H = `ns-${randomUUID()}`;
    const bindings = () => ({ ...NETWORKING, namespace: H, plural: 'networkbindings' });

    it("S3 a binding's location and network are immutable, its consumer is not", async () => {
      await t
        .kubeConfig(HUB)
        .makeApiClient(k8s.CoreV1Api)
        .createNamespace({
          body: {
            metadata: {
              name: H,
              labels: {
                'meta.datumapis.com/upstream-cluster-name': 'cluster-project-alpha',
                'meta.datumapis.com/upstream-namespace': 'default',
              },
            },
          },
        });
      await admin(HUB).createNamespacedCustomObject({
        ...bindings(),
        body: {
          metadata: { name: 'web' },
          spec: {
            network: { name: 'vpc' },
            location: { name: 'us-central-1' },
            consumer: { apiGroup: 'compute.datumapis.com', kind: 'WorkloadDeployment', name: 'web' },
          },
        },
      });

      const moved = await t.kubectl.run([
        '--context',
        HUB,
        'patch',
        'networkbinding',
        'web',
        '-n',
        H,
        '--type=merge',
        '-p',
        JSON.stringify({ spec: { location: { name: 'eu-west-1' } } }),
      ]);
      assert.notEqual(moved.code, 0);
      assert.match(
        moved.stderr,
        /The NetworkBinding "web" is invalid: spec\.location: Invalid value: "object": spec\.location is immutable/,
      );

      assertInvalid(
        await refused(
          admin(HUB).patchNamespacedCustomObject(
            { ...bindings(), name: 'web', body: { spec: { network: { name: 'other' } } } },
            MERGE,
          ),
        ),
        'spec.network',
        'Invalid value: "object": spec.network is immutable',
      );

      const renamed = (await admin(HUB).patchNamespacedCustomObject(
        { ...bindings(), name: 'web', body: { spec: { consumer: { name: 'web-v2' } } } },
        MERGE,
      )) as Obj;
      assert.equal(renamed.spec.consumer.name, 'web-v2');
    });
  });

  describe('in a cell', () => {
    const H = `ns-${randomUUID()}`;
    const claims = () => ({ ...NETWORKING, namespace: H, plural: 'networkinterfaceclaims' });
    const interfaces = () => ({ ...NETWORKING, namespace: H, plural: 'networkinterfaces' });
    const createClaim = (name: string, spec: object) =>
      admin(CELL).createNamespacedCustomObject({ ...claims(), body: { metadata: { name }, spec } });
    const createInterface = (name: string, spec: object) =>
      admin(CELL).createNamespacedCustomObject({ ...interfaces(), body: { metadata: { name }, spec } });

    before(async () => {
      await t
        .kubeConfig(CELL)
        .makeApiClient(k8s.CoreV1Api)
        .createNamespace({ body: { metadata: { name: H } } });
    });

    it('S4 Claim defaults and immutability', async () => {
      const claim = (await createClaim('web-0', { network: { name: 'vpc' } })) as Obj;
      assert.deepEqual(claim.spec, {
        network: { name: 'vpc' },
        interfaceName: 'eth0',
        attachmentMode: 'Netns',
        ipFamilies: ['IPv6'],
        reclaimPolicy: 'Delete',
      });
      assert.deepEqual(
        claim.status?.conditions,
        seeded('Bound', 'Allocated', 'Prepared', 'Programmed', 'Ready'),
      );

      const patch = (spec: object) =>
        refused(
          admin(CELL).patchNamespacedCustomObject({ ...claims(), name: 'web-0', body: { spec } }, MERGE),
        );
      const retain = await patch({ reclaimPolicy: 'Retain' });
      assert.equal(retain.code, 422);
      assert.match(retain.message, /reclaimPolicy is immutable and cannot be changed after creation/);
      assertInvalid(
        await patch({ networkInterfaceName: 'web-0-nic' }),
        'spec',
        'Invalid value: "object": networkInterfaceName is immutable and cannot be set, changed, or cleared after creation',
      );

      assertInvalid(
        await refused(createClaim('twice', { network: { name: 'vpc' }, ipFamilies: ['IPv4', 'IPv4'] })),
        'spec.ipFamilies',
        'Invalid value: "array": Each address family may be requested at most once',
      );
      const long = await refused(
        createClaim('long', { network: { name: 'vpc' }, interfaceName: 'a'.repeat(16) }),
      );
      assert.equal(long.code, 422);
      assert.ok(
        long.causes.some((cause) => cause.field === 'spec.interfaceName'),
        long.message,
      );
    });

    it('S5 Interface and ServingLocation rules', async () => {
      const network = { name: 'vpc' };
      assertInvalid(
        await refused(
          createInterface('two-primaries', {
            network,
            addresses: [
              { family: 'IPv6', address: 'fd20::1:0:0/96', primary: true },
              { family: 'IPv4', address: '10.128.0.1/32', primary: true },
            ],
          }),
        ),
        'spec.addresses',
        'Invalid value: "array": Exactly one address must be primary',
      );
      assertInvalid(
        await refused(
          createInterface('two-ipv6', {
            network,
            addresses: [
              { family: 'IPv6', address: 'fd20::1:0:0/96', primary: true },
              { family: 'IPv6', address: 'fd20::2:0:0/96' },
            ],
          }),
        ),
        'spec.addresses',
        'Invalid value: "array": Only one address may be held per address family',
      );
      assertInvalid(
        await refused(
          createInterface('same-external', {
            network,
            externalAddresses: [
              { family: 'IPv4', address: '203.0.113.1', class: 'datum-public-v4' },
              { family: 'IPv4', address: '203.0.113.1', class: 'partner-v4' },
            ],
          }),
        ),
        'spec.externalAddresses',
        'Invalid value: "array": External addresses must be unique',
      );

      const cityCode =
        'Invalid value: "object": topology must carry a non-empty topology.datum.net/city-code';
      for (const [name, topology] of [
        ['no-city', { 'topology.datum.net/region': 'us-central1' }],
        ['empty-city', { 'topology.datum.net/city-code': '' }],
      ] as const) {
        assertInvalid(
          await refused(
            admin(CELL).createClusterCustomObject({
              ...NETWORKING,
              plural: 'servinglocations',
              body: { metadata: { name }, spec: { topology } },
            }),
          ),
          'spec.topology',
          cityCode,
        );
      }

      assertInvalid(
        await refused(
          admin(PLATFORM).createClusterCustomObject({
            ...NETWORKING,
            plural: 'locations',
            body: {
              metadata: { name: 'north' },
              spec: {
                locationClassName: 'datum-managed',
                topology: { 'topology.datum.net/city-code': 'NTH' },
                provider: {},
                coordinates: { latitude: '91', longitude: '0' },
              },
            },
          }),
        ),
        'spec.coordinates.latitude',
        'Invalid value: "string": latitude must be between -90 and 90',
      );
    });
  });
});

/**
 * An identity of the platform's users: a ClusterRole (bound to its group in the project plane)
 * grants IPClaims, read access to the rest of IPAM and deletion of allocations, but neither
 * `ipclaims/status` nor creating `ipallocations` — those are IPAM's own writes.
 */
async function platformUser(t: TestServer): Promise<k8s.CustomObjectsApi> {
  const rbac = t.kubeConfig(PROJECT).makeApiClient(k8s.RbacAuthorizationV1Api);
  await rbac.createClusterRole({
    body: {
      metadata: { name: 'ipam-user' },
      rules: [
        {
          apiGroups: [IPAM.group],
          resources: ['ipclaims'],
          verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
        },
        { apiGroups: [IPAM.group], resources: ['ipallocations'], verbs: ['get', 'list', 'watch', 'delete'] },
        { apiGroups: [IPAM.group], resources: ['ipclasses', 'ippools'], verbs: ['get', 'list', 'watch'] },
      ],
    },
  });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: 'ipam-users' },
      subjects: [{ kind: 'Group', name: 'acme:developers', apiGroup: 'rbac.authorization.k8s.io' }],
      roleRef: { kind: 'ClusterRole', name: 'ipam-user', apiGroup: 'rbac.authorization.k8s.io' },
    },
  });
  const path = join(t.dir, 'user.kubeconfig');
  const token = t.server.createIdentity('alice', ['acme:developers']);
  await writeFile(path, t.server.kubeconfig(token), { mode: 0o600 });
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(path);
  kc.setCurrentContext(PROJECT);
  return kc.makeApiClient(k8s.CustomObjectsApi);
}

/**
 * Scenarios 127–130 (scenarios.md §15): the simulated data plane of `netpresence up`, through the
 * fleet's HTTP API as a user reaches it — the README quick start's binding and claim, kubectl,
 * and `netpresence trace claim`.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { DEFAULT_FLEET_YAML } from '../../src/fleet/config.ts';
import {
  allWithin,
  conditionOf,
  GIVEN_WITHIN,
  KINDS,
  REPO_ROOT,
  startChildFleet,
  WITHIN,
  type Any,
  type ChildFleet,
} from '../support/fleet.ts';
import { requireKubectl } from '../support/kubectl.ts';

const run = promisify(execFile);
const CELL = 'cell-us-central-1';
const PROJECT = 'project-demo';
const SUBNET = 'default-us-central-1-ipv6';

/** The quick start's binding (at `location`) and claim `claim` on the cell serving it. */
async function quickStart(
  fleet: ChildFleet,
  ns: string,
  options: { location?: string; cell?: string; claim?: string; spec?: Record<string, unknown> } = {},
) {
  const location = options.location ?? 'us-central-1';
  await fleet
    .client('hub', KINDS.networkBindings)
    .create({
      metadata: { name: `web-${location}`, namespace: ns },
      spec: {
        network: { name: 'default' },
        location: { name: location },
        consumer: { apiGroup: 'compute.datumapis.com', kind: 'WorkloadDeployment', name: 'web' },
      },
    })
    .catch((err: Any) => {
      if (err?.code !== 409 && err?.statusCode !== 409) throw err;
    });
  // The hub namespace reaches the cell a propagation later: a claim sent before it is refused 404.
  await allWithin(GIVEN_WITHIN, {
    [`${ns} is on ${options.cell ?? CELL}`]: async () =>
      (await fleet.client(options.cell ?? CELL, KINDS.namespaces).get(ns)) !== undefined,
  });
  await fleet.client(options.cell ?? CELL, KINDS.claims).create({
    metadata: { name: options.claim ?? 'web-0', namespace: ns },
    spec: { network: { name: 'default' }, ipFamilies: ['IPv6', 'IPv4'], ...options.spec },
  });
}

const getIn = (fleet: ChildFleet, context: string, kind: keyof typeof KINDS, name: string, ns?: string) =>
  fleet.client<Any>(context, KINDS[kind]).get(name, ns);

const is = (object: Any, type: string, status: string, reason?: string) =>
  conditionOf(object, type)?.status === status &&
  (reason === undefined || conditionOf(object, type)?.reason === reason);

/** Waits for the claim's `Bound=True` and returns when it was seen. */
async function bound(fleet: ChildFleet, ns: string, claim = 'web-0', cell = CELL): Promise<number> {
  await allWithin(GIVEN_WITHIN, {
    [`${claim} is Bound`]: async () => is(await getIn(fleet, cell, 'claims', claim, ns), 'Bound', 'True'),
  });
  return Date.now();
}

/** The default fleet with a `dataPlane` section. */
const withDataPlane = (dataPlane: string) => `${DEFAULT_FLEET_YAML}dataPlane:\n${dataPlane}`;

describe('simulated data plane (scenarios.md §15)', () => {
  describe('the default fleet', () => {
    let fleet: ChildFleet;
    let ns: string;
    before(async () => {
      fleet = await startChildFleet();
      ns = await fleet.hubNamespace('demo');
    });
    after(() => fleet?.dispose());

    it('S127 the default fleet goes green: the claim turns Ready and kubectl wait succeeds', async () => {
      requireKubectl();
      await quickStart(fleet, ns);
      await bound(fleet, ns);
      await allWithin(WITHIN, {
        'the interface is Prepared and Programmed': async () => {
          const iface = await getIn(fleet, CELL, 'interfaces', 'web-0', ns);
          return is(iface, 'Prepared', 'True', 'Prepared') && is(iface, 'Programmed', 'True', 'Programmed');
        },
        'the claim is Ready': async () =>
          is(await getIn(fleet, CELL, 'claims', 'web-0', ns), 'Ready', 'True', 'Ready'),
      });
      const waited = await fleet.kubectl.run([
        '--context',
        CELL,
        '-n',
        ns,
        'wait',
        'networkinterfaceclaim/web-0',
        '--for=condition=Ready',
        '--timeout=10s',
      ]);
      assert.equal(waited.code, 0, waited.stderr);
      await allWithin(WITHIN, {
        [`Subnet ${SUBNET} is Programmed and Ready`]: async () => {
          const subnet = await getIn(fleet, PROJECT, 'subnets', SUBNET, 'default');
          return is(subnet, 'Programmed', 'True', 'Programmed') && is(subnet, 'Ready', 'True');
        },
      });
      const subnet = await getIn(fleet, PROJECT, 'subnets', SUBNET, 'default');
      assert.equal(conditionOf(subnet, 'Programmed')?.message, 'The subnet is programmed in 1 cells');
    });

    it('S130 a retained interface is not programmed once its claim is deleted', async () => {
      await quickStart(fleet, ns, { claim: 'web-1', spec: { reclaimPolicy: 'Retain' } });
      await bound(fleet, ns, 'web-1');
      await allWithin(GIVEN_WITHIN, {
        'web-1 is Ready': async () => is(await getIn(fleet, CELL, 'claims', 'web-1', ns), 'Ready', 'True'),
      });
      await fleet.client(CELL, KINDS.claims).delete('web-1', ns);
      await allWithin(WITHIN, {
        'the interface is Available with Prepared and Programmed Unknown Pending': async () => {
          const iface = await getIn(fleet, CELL, 'interfaces', 'web-1', ns);
          return (
            iface?.status?.phase === 'Available' &&
            is(iface, 'Prepared', 'Unknown', 'Pending') &&
            is(iface, 'Programmed', 'Unknown', 'Pending')
          );
        },
      });
    });
  });

  it('S128 with no data plane the claim stays NotPrepared and nothing is Prepared or Programmed', async () => {
    const fleet = await startChildFleet({ config: withDataPlane('  mode: none\n') });
    try {
      const ns = await fleet.hubNamespace('demo');
      await quickStart(fleet, ns);
      await bound(fleet, ns);
      // The simulated data plane, were it running, answers within WITHIN of Bound.
      const until = performance.now() + WITHIN;
      while (performance.now() < until) {
        const [claim, iface] = await Promise.all([
          getIn(fleet, CELL, 'claims', 'web-0', ns),
          getIn(fleet, CELL, 'interfaces', 'web-0', ns),
        ]);
        assert.ok(is(claim, 'Ready', 'Unknown', 'NotPrepared'), JSON.stringify(claim.status));
        for (const object of [claim, iface])
          for (const type of ['Prepared', 'Programmed'])
            assert.notEqual(conditionOf(object, type)?.status, 'True', `${type} on ${object?.kind}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const subnet = await getIn(fleet, PROJECT, 'subnets', SUBNET, 'default');
      assert.notEqual(conditionOf(subnet, 'Programmed')?.status, 'True');
    } finally {
      await fleet.dispose();
    }
  });

  it('S129 a refusing data plane: Programmed=False with the reason, trace prints it, eu-west-1 goes Ready', async () => {
    const fleet = await startChildFleet({
      config: withDataPlane(
        [
          '  refuse:',
          '    - network: default',
          '      location: us-central-1',
          '      reason: VLANExhausted',
          '      message: "no VLAN left on the leaf switches"',
          '',
        ].join('\n'),
      ),
    });
    try {
      const ns = await fleet.hubNamespace('demo');
      await quickStart(fleet, ns);
      await quickStart(fleet, ns, { location: 'eu-west-1', cell: 'cell-eu-west-1', claim: 'web-eu' });
      await bound(fleet, ns);
      const message = 'no VLAN left on the leaf switches';
      await allWithin(WITHIN, {
        'the interface reads Programmed=False VLANExhausted': async () => {
          const iface = await getIn(fleet, CELL, 'interfaces', 'web-0', ns);
          return (
            is(iface, 'Programmed', 'False', 'VLANExhausted') &&
            conditionOf(iface, 'Programmed')?.message === message
          );
        },
        'the claim reads Programmed=False VLANExhausted and Ready=False NotProgrammed': async () => {
          const claim = await getIn(fleet, CELL, 'claims', 'web-0', ns);
          return (
            is(claim, 'Programmed', 'False', 'VLANExhausted') &&
            conditionOf(claim, 'Programmed')?.message === message &&
            is(claim, 'Ready', 'False', 'NotProgrammed')
          );
        },
      });
      await allWithin(GIVEN_WITHIN, {
        'the claim in eu-west-1 is Ready': async () =>
          is(await getIn(fleet, 'cell-eu-west-1', 'claims', 'web-eu', ns), 'Ready', 'True', 'Ready'),
      });
      const bin = join(REPO_ROOT, 'bin/netpresence.js');
      const traced = await run(
        process.execPath,
        [bin, 'trace', 'claim', `${CELL}/${ns}/web-0`, '--kubeconfig', fleet.kubeconfigPath],
        { timeout: 60_000 },
      ).catch((err: Any) => ({ stdout: String(err.stdout ?? ''), stderr: String(err.stderr ?? '') }));
      const hopLines = traced.stdout.split('\n');
      const at = hopLines.findIndex((line) => /^\S+\s+interface\s/.test(line));
      assert.ok(at >= 0, traced.stdout + traced.stderr);
      const hop = hopLines.slice(at, at + 4).join('\n');
      assert.match(hop, /VLANExhausted/, traced.stdout);
      assert.ok(hop.includes(message), traced.stdout);
    } finally {
      await fleet.dispose();
    }
  });
});

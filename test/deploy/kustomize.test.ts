/**
 * The kustomize bases under config/, rendered with `kubectl kustomize` as a user applies them:
 * every kustomization renders; every Deployment probes the paths its process serves at the port
 * its flags make it listen on, passes only flags its subcommand has, and runs non-root on a
 * read-only root filesystem; every metrics Service reaches the metrics port; every ServiceAccount
 * named exists; every role is bound; every RBAC rule says which controller step needs it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Command } from 'commander';
import { parseAllDocuments } from 'yaml';
import { cellCommand } from '../../src/cli/cell.ts';
import { managerCommand } from '../../src/cli/manager.ts';
import { propagatorCommand } from '../../src/cli/propagator.ts';
import { serveEndpoints, type Endpoints } from '../../src/runtime/endpoints.ts';
import { RuntimeMetrics } from '../../src/runtime/metrics.ts';
import { requireKubectl } from '../support/kubectl.ts';

const CONFIG = resolve(import.meta.dirname, '../../config');
const COMMANDS: Record<string, () => Command> = {
  manager: managerCommand,
  propagator: propagatorCommand,
  cell: cellCommand,
};

type Obj = Record<string, any>;

function kustomizations(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) found.push(...kustomizations(path));
    else if (entry === 'kustomization.yaml') found.push(dir);
  }
  return found.sort();
}

function render(dir: string): Obj[] {
  requireKubectl();
  const result = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(result.status, 0, `kubectl kustomize ${relative(CONFIG, dir)}: ${result.stderr}`);
  return parseAllDocuments(result.stdout).map((doc) => doc.toJSON() as Obj);
}

const portOf = (addr: string): number => Number(/:(\d+)$/.exec(addr)![1]);
const flagValue = (args: string[], flag: string): string | undefined =>
  args.find((a) => a.startsWith(`${flag}=`))?.slice(flag.length + 1);
const id = (o: Obj): string =>
  `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;

describe('kustomize bases under config/', () => {
  const rendered = new Map<string, Obj[]>();
  let endpoints: Endpoints;

  before(async () => {
    for (const dir of kustomizations(CONFIG)) rendered.set(relative(CONFIG, dir), render(dir));
    endpoints = await serveEndpoints({
      healthAddr: { host: '127.0.0.1', port: 0 },
      metricsAddr: { host: '127.0.0.1', port: 0 },
      metrics: new RuntimeMetrics(),
      ready: () => true,
    });
  });
  after(() => endpoints.close());

  it('has the bases the README names, each rendering', () => {
    for (const base of [
      'crd/platform',
      'crd/project',
      'crd/hub',
      'crd/propagation',
      'crd/cell',
      'rbac/platform',
      'rbac/project',
      'rbac/hub',
      'rbac/cell',
      'manager',
      'propagator',
      'cell',
      'default/hub',
      'default/cell',
    ]) {
      assert.ok(rendered.get(base)?.length, `config/${base} renders no object`);
    }
  });

  it('runs each process with its own flags, probes on the port and paths it serves, metrics behind a Service', async () => {
    const deployments = [...rendered.values()].flat().filter((o) => o.kind === 'Deployment');
    assert.equal(new Set(deployments.map((d) => d.metadata.name)).size, 3);
    for (const deployment of deployments) {
      const pod = deployment.spec.template.spec;
      assert.equal(pod.containers.length, 1);
      const [container] = pod.containers;
      const [command, ...args] = container.args as string[];
      const known = new Set(COMMANDS[command]().options.map((o) => o.long));
      for (const arg of args)
        assert.ok(known.has(arg.split('=')[0]), `${id(deployment)}: netpresence ${command} has no ${arg}`);
      const ports = new Map<string, number>(container.ports.map((p: Obj) => [p.name, p.containerPort]));
      const port = (p: string | number): number | undefined => (typeof p === 'number' ? p : ports.get(p));
      const health = portOf(flagValue(args, '--health-addr')!);
      const metrics = portOf(flagValue(args, '--metrics-addr')!);
      assert.match(flagValue(args, '--health-addr')!, /^0\.0\.0\.0:/, 'the kubelet probes the pod IP');
      for (const [probe, path] of [
        ['livenessProbe', '/healthz'],
        ['readinessProbe', '/readyz'],
      ] as const) {
        const get = container[probe].httpGet;
        assert.equal(get.path, path, `${id(deployment)} ${probe}`);
        assert.equal(port(get.port), health, `${id(deployment)} ${probe} port`);
        const answer = await fetch(`${endpoints.healthUrl}${get.path}`);
        assert.equal(answer.status, 200, `the process serves ${get.path}`);
      }
      assert.equal(port('metrics'), metrics, `${id(deployment)} metrics port`);
      assert.equal((await fetch(`${endpoints.metricsUrl}/metrics`)).status, 200);
      const service = [...rendered.values()]
        .flat()
        .find((o) => o.kind === 'Service' && o.metadata.name === `${deployment.metadata.name}-metrics`);
      assert.ok(service, `a metrics Service for ${id(deployment)}`);
      for (const [key, value] of Object.entries(service.spec.selector)) {
        assert.equal(
          pod.containers && deployment.spec.template.metadata.labels[key],
          value,
          `${id(service)} selects the pods`,
        );
      }
      assert.equal(port(service.spec.ports[0].targetPort), metrics);

      assert.equal(pod.securityContext.runAsNonRoot, true);
      assert.ok(pod.securityContext.runAsUser > 0);
      assert.equal(container.securityContext.readOnlyRootFilesystem, true);
      assert.ok(container.resources.requests.cpu && container.resources.requests.memory);
      assert.equal(flagValue(args, '--identity'), '$(POD_NAME)', 'leader election candidate per Pod');
      // Each kubeconfig flag names a file in a mounted Secret.
      for (const arg of args.filter((a) => /kubeconfig=/.test(a))) {
        const path = arg.split('=')[1];
        const mount = container.volumeMounts.find((m: Obj) => path.startsWith(`${m.mountPath}/`));
        assert.ok(mount, `${id(deployment)}: ${arg} is in no mounted volume`);
        assert.ok(
          pod.volumes.find((v: Obj) => v.name === mount.name).secret?.secretName,
          `${arg} comes from a Secret`,
        );
      }
    }
  });

  it('names only ServiceAccounts that exist and binds every role', () => {
    for (const base of [
      'rbac/platform',
      'rbac/project',
      'rbac/hub',
      'rbac/cell',
      'default/hub',
      'default/cell',
    ]) {
      const objects = rendered.get(base)!;
      const accounts = new Set(
        objects
          .filter((o) => o.kind === 'ServiceAccount')
          .map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
      );
      const bindings = objects.filter((o) => o.kind === 'ClusterRoleBinding' || o.kind === 'RoleBinding');
      for (const binding of bindings) {
        for (const subject of binding.subjects) {
          if (subject.kind === 'Group') {
            // Only the ServiceAccounts of a namespace the base creates.
            const namespace = /^system:serviceaccounts:(.+)$/.exec(subject.name)?.[1];
            assert.ok(
              namespace && objects.some((o) => o.kind === 'Namespace' && o.metadata.name === namespace),
              `${base}: ${id(binding)} binds the group ${subject.name}`,
            );
            continue;
          }
          assert.equal(subject.kind, 'ServiceAccount', `${base}: ${id(binding)} binds a ${subject.kind}`);
          assert.ok(
            accounts.has(`${subject.namespace}/${subject.name}`),
            `${base}: ${id(binding)} names a missing ServiceAccount ${subject.name}`,
          );
        }
        const role = objects.find(
          (o) =>
            o.kind === binding.roleRef.kind &&
            o.metadata.name === binding.roleRef.name &&
            (o.kind === 'ClusterRole' || o.metadata.namespace === binding.metadata.namespace),
        );
        assert.ok(
          role,
          `${base}: ${id(binding)} refers to a missing ${binding.roleRef.kind} ${binding.roleRef.name}`,
        );
      }
      for (const role of objects.filter((o) => o.kind === 'ClusterRole' || o.kind === 'Role')) {
        const bound = bindings.some(
          (b) =>
            b.roleRef.kind === role.kind &&
            b.roleRef.name === role.metadata.name &&
            (role.kind === 'ClusterRole' || b.metadata.namespace === role.metadata.namespace),
        );
        const boundAtRuntime = role.metadata.annotations?.['netpresence.datumapis.com/bound-by'];
        assert.ok(bound || boundAtRuntime, `${base}: ${id(role)} is bound by nothing`);
      }
      for (const deployment of objects.filter((o) => o.kind === 'Deployment')) {
        const account = `${deployment.metadata.namespace}/${deployment.spec.template.spec.serviceAccountName}`;
        assert.ok(
          accounts.has(account),
          `${base}: ${id(deployment)} runs as a missing ServiceAccount ${account}`,
        );
      }
    }
  });

  it('says which controller step needs each RBAC rule', () => {
    const rbac = join(CONFIG, 'rbac');
    for (const plane of readdirSync(rbac)) {
      for (const file of readdirSync(join(rbac, plane)).filter((f) => f !== 'kustomization.yaml')) {
        const lines = readFileSync(join(rbac, plane, file), 'utf8').split('\n');
        lines.forEach((line, i) => {
          if (!/^\s*- apiGroups:/.test(line)) return;
          const above = lines[i - 1];
          assert.match(
            above ?? '',
            /^\s*#/,
            `config/rbac/${plane}/${file}:${i + 1}: a rule without a comment`,
          );
        });
      }
    }
  });
});

/**
 * What the interface write-back and the interface projector may do (controllers.md §13): the
 * config/rbac bases stored in a served hub and project plane as the fleet applies them, asked
 * through `kubectl auth can-i` with the tokens the fleet mints. A cell may list, watch, create,
 * patch and delete NetworkInterfaces on the hub, and patch their status, and nothing else there
 * (it never gets or updates one: informers and patches); the manager may do the same with
 * NetworkInterfaces in a project plane, where a cell may not touch them.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { renderKubeconfig } from '../../src/apiserver/auth/kubeconfig.ts';
import { ApiServer } from '../../src/apiserver/server.ts';
import { crdsOfPlane, installPlaneCrds } from '../../src/fleet/bootstrap.ts';
import { fleetTokens } from '../../src/fleet/identities.ts';
import { applyRbacBase } from '../../src/fleet/rbac-bases.ts';
import { Kubectl } from '../support/kubectl.ts';

const VERBS = ['list', 'watch', 'create', 'patch', 'delete'];
const NOT_VERBS = ['get', 'update', 'deletecollection'];
const INTERFACES = 'networkinterfaces.networking.datumapis.com';

describe('interface visibility RBAC', () => {
  let server: ApiServer;
  let dir: string;
  let kubectl: Kubectl;

  before(async () => {
    server = await ApiServer.start({});
    dir = await mkdtemp(join(tmpdir(), 'netpresence-interface-rbac-'));
    server.addPlane('hub');
    const project = server.addProjectPlane('project-alpha').name;
    installPlaneCrds(server.plane('hub')!, crdsOfPlane.hub);
    installPlaneCrds(server.plane(project)!, crdsOfPlane.project);
    applyRbacBase(server.plane('hub')!, 'hub');
    applyRbacBase(server.plane(project)!, 'project');
    const cellToken = fleetTokens.cellAbroad(server, 'cell-a');
    const managerToken = fleetTokens.manager(server);
    const path = join(dir, 'kubeconfig');
    await writeFile(
      path,
      renderKubeconfig(
        server.certificates.caCertPem,
        [
          { name: 'hub-as-cell-a', server: server.url('hub'), token: cellToken },
          { name: 'project-as-manager', server: server.url(project), token: managerToken },
          { name: 'project-as-cell-a', server: server.url(project), token: cellToken },
        ],
        'hub-as-cell-a',
      ),
    );
    kubectl = new Kubectl(path, join(dir, 'cache'), dir);
  });

  after(async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const canI = async (context: string, verb: string, resource: string, namespace?: string) => {
    const args = ['--context', context, 'auth', 'can-i', verb, resource];
    const result = await kubectl.run(namespace ? [...args, '-n', namespace] : args);
    return result.stdout.trim();
  };

  it("a cell's hub identity may publish NetworkInterfaces and nothing else on the hub", async () => {
    for (const verb of VERBS) {
      assert.equal(await canI('hub-as-cell-a', verb, INTERFACES, 'ns-u'), 'yes', `${verb} in a namespace`);
      assert.equal(await canI('hub-as-cell-a', verb, INTERFACES), 'yes', `${verb} across namespaces`);
    }
    for (const verb of NOT_VERBS)
      assert.equal(await canI('hub-as-cell-a', verb, INTERFACES, 'ns-u'), 'no', `${verb} in a namespace`);
    for (const resource of [
      'networkcontexts.networking.datumapis.com',
      'networkbindings.networking.datumapis.com',
      'namespaces',
      'secrets',
      'leases.coordination.k8s.io',
    ])
      assert.equal(await canI('hub-as-cell-a', 'get', resource, 'ns-u'), 'no', resource);
    const status = await kubectl.run([
      '--context',
      'hub-as-cell-a',
      'auth',
      'can-i',
      'patch',
      INTERFACES,
      '--subresource=status',
      '-n',
      'ns-u',
    ]);
    assert.equal(status.stdout.trim(), 'yes', 'patch the status of a copy');
  });

  it('the manager may project NetworkInterfaces into a project plane; a cell may not', async () => {
    for (const verb of VERBS)
      assert.equal(await canI('project-as-manager', verb, INTERFACES, 'default'), 'yes', verb);
    for (const verb of NOT_VERBS)
      assert.equal(await canI('project-as-manager', verb, INTERFACES, 'default'), 'no', verb);
    assert.equal(await canI('project-as-cell-a', 'get', INTERFACES, 'default'), 'no');
  });
});

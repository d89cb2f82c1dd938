/**
 * What the interface write-back and the interface projector may do (controllers.md §13): the
 * fleet's grants stored in a served hub and project plane, asked through `kubectl auth can-i`
 * as each identity. A cell may get/list/watch/create/update/patch/delete NetworkInterfaces on
 * the hub and nothing else there; the manager may do the same on NetworkInterfaces in a project
 * plane.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { renderKubeconfig } from '../../src/apiserver/auth/kubeconfig.ts';
import { ApiServer } from '../../src/apiserver/server.ts';
import { crdsOfPlane, ensureObjects, installPlaneCrds } from '../../src/fleet/bootstrap.ts';
import {
  cellIdentity,
  CLUSTER_ROLE_BINDINGS,
  CLUSTER_ROLES,
  hubGrants,
  MANAGER_IDENTITY,
  projectGrants,
  type Grant,
} from '../../src/fleet/identities.ts';
import { Kubectl } from '../support/kubectl.ts';

const VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
const INTERFACES = 'networkinterfaces.networking.datumapis.com';

describe('interface visibility RBAC', () => {
  let server: ApiServer;
  let dir: string;
  let kubectl: Kubectl;

  before(async () => {
    server = await ApiServer.start({});
    dir = await mkdtemp(join(tmpdir(), 'netpresence-interface-rbac-'));
    const grantIn = (plane: string, grant: Grant) => {
      ensureObjects(server.plane(plane)!, CLUSTER_ROLES, grant.roles);
      ensureObjects(server.plane(plane)!, CLUSTER_ROLE_BINDINGS, grant.bindings);
    };
    server.addPlane('hub');
    const project = server.addProjectPlane('project-alpha').name;
    installPlaneCrds(server.plane('hub')!, crdsOfPlane.hub);
    installPlaneCrds(server.plane(project)!, crdsOfPlane.project);
    grantIn('hub', hubGrants(['cell-a']));
    grantIn(project, projectGrants(['cell-a']));
    const cellToken = server.createIdentity(cellIdentity('cell-a'));
    const managerToken = server.createIdentity(MANAGER_IDENTITY);
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

  it("a cell's hub identity may do every verb on NetworkInterfaces and nothing else on the hub", async () => {
    for (const verb of VERBS) {
      assert.equal(await canI('hub-as-cell-a', verb, INTERFACES, 'ns-u'), 'yes', `${verb} in a namespace`);
      assert.equal(await canI('hub-as-cell-a', verb, INTERFACES), 'yes', `${verb} across namespaces`);
    }
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
    assert.equal(await canI('hub-as-cell-a', 'deletecollection', INTERFACES, 'ns-u'), 'no');
  });

  it('the manager may do every verb on NetworkInterfaces in a project plane; a cell may not', async () => {
    for (const verb of VERBS)
      assert.equal(await canI('project-as-manager', verb, INTERFACES, 'default'), 'yes', verb);
    assert.equal(await canI('project-as-cell-a', 'get', INTERFACES, 'default'), 'no');
  });
});

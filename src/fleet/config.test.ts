import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { configMessages, DEFAULT_FLEET_YAML, defaultFleetConfig, parseFleetConfig } from './config.ts';

describe('fleet config', () => {
  it('the default fleet is project demo with a dual-stack network, two served locations and a spare cell', () => {
    const config = defaultFleetConfig();
    assert.deepEqual(config.projects, [
      {
        name: 'demo',
        organization: 'acme',
        networks: [{ name: 'default', ipFamilies: ['IPv6', 'IPv4'], mtu: 1460 }],
      },
    ]);
    assert.deepEqual(
      config.locations.map((l) => [l.name, l.locationClassName, l.ready, l.networking]),
      [
        ['us-central-1', 'datum-managed', true, true],
        ['eu-west-1', 'datum-managed', true, true],
      ],
    );
    assert.deepEqual(config.cells, [
      { name: 'cell-us-central-1', location: 'us-central-1' },
      { name: 'cell-eu-west-1', location: 'eu-west-1' },
      { name: 'cell-spare' },
    ]);
    assert.ok(DEFAULT_FLEET_YAML.includes('cell-spare'));
  });

  it('fills every default a field leaves out', () => {
    const config = parseFleetConfig(
      'projects: [{ name: p, networks: [{ name: n }] }]\nlocations: [{ name: l }]\n',
    );
    assert.deepEqual(config.projects[0].networks[0], { name: 'n', ipFamilies: ['IPv6'], mtu: 1460 });
    assert.deepEqual(config.locations[0], {
      name: 'l',
      locationClassName: 'datum-managed',
      topology: {},
      ready: true,
      networking: true,
    });
    assert.deepEqual(config.cells, []);
  });

  it('a cell may be served without its controllers, for a netpresence cell run against it', () => {
    const config = parseFleetConfig(
      'cells: [{ name: cell-a, location: l, controllers: false }, { name: cell-b, controllers: true }]\n',
    );
    assert.deepEqual(config.cells, [
      { name: 'cell-a', controllers: false, location: 'l' },
      { name: 'cell-b' },
    ]);
    assert.throws(
      () => parseFleetConfig('cells: [{ name: cell-a, controllers: sometimes }]\n'),
      (err: Error) => err.message.includes(configMessages.badBoolean('cells[0].controllers')),
    );
  });

  it('names every problem at once, each with its field', () => {
    const text = [
      'projects:',
      '  - name: Bad_Name',
      '    networks: [{ name: n, ipFamilies: [IPv6, IPv6], mtu: 9000 }]',
      'locations:',
      '  - name: l',
      '    ready: yes-please',
      '    colour: blue',
      'cells:',
      '  - name: cell-a',
      '  - name: cell-a',
      '  - name: edge',
    ].join('\n');
    assert.throws(
      () => parseFleetConfig(text, 'fleet.yaml'),
      (err: Error) => {
        for (const expected of [
          configMessages.badName('projects[0].name', 'Bad_Name'),
          configMessages.badFamilies('projects[0].networks[0].ipFamilies'),
          configMessages.badMtu('projects[0].networks[0].mtu'),
          configMessages.badBoolean('locations[0].ready'),
          configMessages.duplicate('cells[1].name', 'cell-a'),
          configMessages.cellPrefix('cells[2].name', 'edge'),
        ])
          assert.ok(err.message.includes(expected), `${err.message}\nlacks: ${expected}`);
        assert.match(err.message, /^fleet\.yaml:/);
        assert.match(err.message, /locations\[0\]\.colour is not a field/);
        return true;
      },
    );
  });

  it('the data plane defaults to simulated, no delay and no refusals', () => {
    assert.deepEqual(defaultFleetConfig().dataPlane, { mode: 'simulated', delayMs: 0, refuse: [] });
  });

  it('reads a refusing data plane, and names each bad data-plane field', () => {
    const config = parseFleetConfig(
      'dataPlane:\n  mode: none\n  delayMs: 250\n  refuse:\n    - { network: n, location: l, reason: VLANExhausted, message: no VLAN }\n',
    );
    assert.deepEqual(config.dataPlane, {
      mode: 'none',
      delayMs: 250,
      refuse: [{ network: 'n', location: 'l', reason: 'VLANExhausted', message: 'no VLAN' }],
    });
    assert.throws(
      () =>
        parseFleetConfig(
          'dataPlane:\n  mode: real\n  delayMs: -1\n  refuse: [{ network: n, location: L_1, reason: "no way" }]\n',
        ),
      (err: Error) => {
        for (const expected of [
          configMessages.badMode('dataPlane.mode'),
          configMessages.badDelay('dataPlane.delayMs'),
          configMessages.badName('dataPlane.refuse[0].location', 'L_1'),
          configMessages.badReason('dataPlane.refuse[0].reason'),
        ])
          assert.ok(err.message.includes(expected), `${err.message}\nlacks: ${expected}`);
        return true;
      },
    );
  });

  it('refuses a document that is not a mapping', () => {
    assert.throws(() => parseFleetConfig('- a\n- b\n', 'f.yaml'), new RegExp(configMessages.notAMapping));
  });
});

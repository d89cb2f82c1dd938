/**
 * The fleet's configuration: which projects (with their networks), locations and cells
 * `netpresence up` seeds on first start, and how its simulated data plane answers, read from
 * YAML, with the default fleet built in.
 *
 * Guarantees: `parseFleetConfig` returns a complete config (every default filled in) or throws
 * one Error listing every problem, each naming the field and what to write instead. Names are
 * DNS subdomains and unique within their list; a cell's name starts with `cell-`, because it
 * is at once the hub `Cluster`, the plane `/planes/<name>` and the kubeconfig context.
 * Caveat: the config is seed data — it is applied to a data directory once, when the fleet is
 * first created there; later edits to the objects (or to the file) are not reconciled back.
 */
import { parse as parseYaml } from 'yaml';
import { isDnsSubdomain } from '../apis/common/names.ts';
import { DEFAULT_MTU, MTU_MAX, MTU_MIN } from '../apis/networking/v1alpha/network.ts';

export type IpFamily = 'IPv6' | 'IPv4';

export interface NetworkConfig {
  name: string;
  ipFamilies: IpFamily[];
  mtu: number;
}

export interface ProjectConfig {
  name: string;
  /** The Organization named in the Project's `spec.ownerRef`. */
  organization: string;
  /** Networks created in the project's namespace `default`. */
  networks: NetworkConfig[];
}

export interface LocationConfig {
  name: string;
  locationClassName: string;
  topology: Record<string, string>;
  /** The Location's `Ready` condition. */
  ready: boolean;
  /** Whether a ServiceAvailability says networking.datumapis.com is Available here. */
  networking: boolean;
}

export interface CellConfig {
  /** The hub Cluster, the plane `/planes/<name>` and the kubeconfig context; starts with `cell-`. */
  name: string;
  /** The location it serves (the Cluster's `topology.datum.net/location` label); none if absent. */
  location?: string;
  /**
   * Whether the fleet runs the cell's controllers (default true); false serves the cell's plane,
   * Cluster and identities only, for a `netpresence cell` run against them.
   */
  controllers?: boolean;
}

/** A refusal the simulated data plane answers for a network in a location (controllers.md §14). */
export interface DataPlaneRefusal {
  network: string;
  location: string;
  reason: string;
  message: string;
}

export type DataPlaneMode = 'simulated' | 'none';

/** The simulated data plane of the fleet (controllers.md §14). */
export interface DataPlaneConfig {
  mode: DataPlaneMode;
  /** How long "programming" takes, from `Allocated=True`. */
  delayMs: number;
  refuse: DataPlaneRefusal[];
}

export interface FleetConfig {
  projects: ProjectConfig[];
  locations: LocationConfig[];
  cells: CellConfig[];
  dataPlane: DataPlaneConfig;
}

export const CELL_NAME_PREFIX = 'cell-';
export const DEFAULT_LOCATION_CLASS = 'datum-managed';
export const DEFAULT_ORGANIZATION = 'acme';

/** The default fleet: project `demo`, two served locations and a spare cell. */
export const DEFAULT_FLEET_YAML = `# The default fleet of \`netpresence up\`.
projects:
  - name: demo
    networks:
      - name: default
        ipFamilies: [IPv6, IPv4]
locations:
  - name: us-central-1
    topology:
      topology.datum.net/city-code: DFW
      topology.datum.net/region: us-central1
  - name: eu-west-1
    topology:
      topology.datum.net/city-code: DUB
      topology.datum.net/region: europe-west1
cells:
  - name: cell-us-central-1
    location: us-central-1
  - name: cell-eu-west-1
    location: eu-west-1
  - name: cell-spare
`;

export const configMessages = {
  notAMapping: 'the fleet config must be a YAML mapping with projects, locations and cells',
  notAList: (field: string) => `${field} must be a list`,
  unknownField: (field: string, known: string[]) => `${field} is not a field: use one of ${known.join(', ')}`,
  badName: (field: string, value: unknown) =>
    `${field} "${String(value)}" is not a valid name: use lower-case letters, digits, '-' and '.'`,
  duplicate: (field: string, name: string) => `${field} "${name}" is given twice: give each its own name`,
  cellPrefix: (field: string, name: string) =>
    `${field} "${name}" must start with "${CELL_NAME_PREFIX}": it names the cell's plane and kubeconfig context`,
  badFamilies: (field: string) => `${field} must list IPv6 and/or IPv4, each at most once`,
  badMtu: (field: string) => `${field} must be an integer from ${MTU_MIN} to ${MTU_MAX}`,
  badBoolean: (field: string) => `${field} must be true or false`,
  badString: (field: string) => `${field} must be a string`,
  badTopology: (field: string) => `${field} must map topology keys to strings`,
  badMode: (field: string) => `${field} must be simulated or none`,
  badDelay: (field: string) => `${field} must be a whole number of milliseconds, 0 or more`,
  badReason: (field: string) =>
    `${field} must be a condition reason: a letter, then letters, digits and '_' (for example VLANExhausted)`,
};

type Fields = Record<string, unknown>;

class Problems {
  readonly list: string[] = [];
  add(message: string): void {
    this.list.push(message);
  }
}

function isMapping(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function items(value: unknown, field: string, problems: Problems): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    problems.add(configMessages.notAList(field));
    return [];
  }
  return value;
}

function fieldsOf(value: unknown, field: string, known: string[], problems: Problems): Fields {
  if (!isMapping(value)) {
    problems.add(`${field} must be a mapping`);
    return {};
  }
  for (const key of Object.keys(value))
    if (!known.includes(key)) problems.add(configMessages.unknownField(`${field}.${key}`, known));
  return value;
}

function nameOf(fields: Fields, field: string, seen: Set<string>, problems: Problems): string {
  const name = fields.name;
  if (typeof name !== 'string' || !isDnsSubdomain(name)) {
    problems.add(configMessages.badName(`${field}.name`, name));
    return '';
  }
  if (seen.has(name)) problems.add(configMessages.duplicate(`${field}.name`, name));
  seen.add(name);
  return name;
}

function stringOr(value: unknown, fallback: string, field: string, problems: Problems): string {
  if (value === undefined) return fallback;
  if (typeof value === 'string') return value;
  problems.add(configMessages.badString(field));
  return fallback;
}

function booleanOr(value: unknown, fallback: boolean, field: string, problems: Problems): boolean {
  if (value === undefined) return fallback;
  if (typeof value === 'boolean') return value;
  problems.add(configMessages.badBoolean(field));
  return fallback;
}

function parseNetwork(value: unknown, field: string, seen: Set<string>, problems: Problems): NetworkConfig {
  const fields = fieldsOf(value, field, ['name', 'ipFamilies', 'mtu'], problems);
  const name = nameOf(fields, field, seen, problems);
  let ipFamilies: IpFamily[] = ['IPv6'];
  if (fields.ipFamilies !== undefined) {
    const families = fields.ipFamilies;
    const valid =
      Array.isArray(families) &&
      families.length > 0 &&
      families.every((f) => f === 'IPv6' || f === 'IPv4') &&
      new Set(families).size === families.length;
    if (valid) ipFamilies = families as IpFamily[];
    else problems.add(configMessages.badFamilies(`${field}.ipFamilies`));
  }
  let mtu = DEFAULT_MTU;
  if (fields.mtu !== undefined) {
    if (
      Number.isInteger(fields.mtu) &&
      (fields.mtu as number) >= MTU_MIN &&
      (fields.mtu as number) <= MTU_MAX
    )
      mtu = fields.mtu as number;
    else problems.add(configMessages.badMtu(`${field}.mtu`));
  }
  return { name, ipFamilies, mtu };
}

function parseProject(value: unknown, field: string, seen: Set<string>, problems: Problems): ProjectConfig {
  const fields = fieldsOf(value, field, ['name', 'organization', 'networks'], problems);
  const name = nameOf(fields, field, seen, problems);
  const organization = stringOr(fields.organization, DEFAULT_ORGANIZATION, `${field}.organization`, problems);
  const networkNames = new Set<string>();
  const networks = items(fields.networks, `${field}.networks`, problems).map((network, i) =>
    parseNetwork(network, `${field}.networks[${i}]`, networkNames, problems),
  );
  return { name, organization, networks };
}

function parseTopology(value: unknown, field: string, problems: Problems): Record<string, string> {
  if (value === undefined) return {};
  if (!isMapping(value) || !Object.values(value).every((v) => typeof v === 'string')) {
    problems.add(configMessages.badTopology(field));
    return {};
  }
  return { ...(value as Record<string, string>) };
}

function parseLocation(value: unknown, field: string, seen: Set<string>, problems: Problems): LocationConfig {
  const known = ['name', 'locationClassName', 'topology', 'ready', 'networking'];
  const fields = fieldsOf(value, field, known, problems);
  return {
    name: nameOf(fields, field, seen, problems),
    locationClassName: stringOr(
      fields.locationClassName,
      DEFAULT_LOCATION_CLASS,
      `${field}.locationClassName`,
      problems,
    ),
    topology: parseTopology(fields.topology, `${field}.topology`, problems),
    ready: booleanOr(fields.ready, true, `${field}.ready`, problems),
    networking: booleanOr(fields.networking, true, `${field}.networking`, problems),
  };
}

function parseCell(value: unknown, field: string, seen: Set<string>, problems: Problems): CellConfig {
  const fields = fieldsOf(value, field, ['name', 'location', 'controllers'], problems);
  const name = nameOf(fields, field, seen, problems);
  if (name && !name.startsWith(CELL_NAME_PREFIX))
    problems.add(configMessages.cellPrefix(`${field}.name`, name));
  const controllers = booleanOr(fields.controllers, true, `${field}.controllers`, problems);
  const cell: CellConfig = controllers ? { name } : { name, controllers };
  if (fields.location === undefined) return cell;
  if (typeof fields.location !== 'string' || !isDnsSubdomain(fields.location)) {
    problems.add(configMessages.badName(`${field}.location`, fields.location));
    return cell;
  }
  return { ...cell, location: fields.location };
}

const REASON = /^[A-Za-z][A-Za-z0-9_]{0,1023}$/;

function parseRefusal(value: unknown, field: string, problems: Problems): DataPlaneRefusal {
  const fields = fieldsOf(value, field, ['network', 'location', 'reason', 'message'], problems);
  const nameField = (key: 'network' | 'location'): string => {
    const name = fields[key];
    if (typeof name === 'string' && isDnsSubdomain(name)) return name;
    problems.add(configMessages.badName(`${field}.${key}`, name));
    return '';
  };
  const network = nameField('network');
  const location = nameField('location');
  const reason = fields.reason;
  if (typeof reason !== 'string' || !REASON.test(reason))
    problems.add(configMessages.badReason(`${field}.reason`));
  const message = stringOr(fields.message, '', `${field}.message`, problems);
  return { network, location, reason: typeof reason === 'string' ? reason : '', message };
}

function parseDataPlane(value: unknown, problems: Problems): DataPlaneConfig {
  const dataPlane: DataPlaneConfig = { mode: 'simulated', delayMs: 0, refuse: [] };
  if (value === undefined || value === null) return dataPlane;
  const fields = fieldsOf(value, 'dataPlane', ['mode', 'delayMs', 'refuse'], problems);
  if (fields.mode !== undefined) {
    if (fields.mode === 'simulated' || fields.mode === 'none') dataPlane.mode = fields.mode;
    else problems.add(configMessages.badMode('dataPlane.mode'));
  }
  if (fields.delayMs !== undefined) {
    if (Number.isInteger(fields.delayMs) && (fields.delayMs as number) >= 0)
      dataPlane.delayMs = fields.delayMs as number;
    else problems.add(configMessages.badDelay('dataPlane.delayMs'));
  }
  dataPlane.refuse = items(fields.refuse, 'dataPlane.refuse', problems).map((entry, i) =>
    parseRefusal(entry, `dataPlane.refuse[${i}]`, problems),
  );
  return dataPlane;
}

/** Parses and checks a fleet config; throws one Error listing every problem. */
export function parseFleetConfig(text: string, source = 'fleet config'): FleetConfig {
  const document: unknown = parseYaml(text);
  const problems = new Problems();
  if (!isMapping(document)) throw new Error(`${source}: ${configMessages.notAMapping}`);
  fieldsOf(document, 'config', ['projects', 'locations', 'cells', 'dataPlane'], problems);
  const projectNames = new Set<string>();
  const locationNames = new Set<string>();
  const cellNames = new Set<string>();
  const config: FleetConfig = {
    projects: items(document.projects, 'projects', problems).map((p, i) =>
      parseProject(p, `projects[${i}]`, projectNames, problems),
    ),
    locations: items(document.locations, 'locations', problems).map((l, i) =>
      parseLocation(l, `locations[${i}]`, locationNames, problems),
    ),
    cells: items(document.cells, 'cells', problems).map((c, i) =>
      parseCell(c, `cells[${i}]`, cellNames, problems),
    ),
    dataPlane: parseDataPlane(document.dataPlane, problems),
  };
  if (problems.list.length > 0) throw new Error(`${source}:\n  ${problems.list.join('\n  ')}`);
  return config;
}

export const defaultFleetConfig = (): FleetConfig => parseFleetConfig(DEFAULT_FLEET_YAML, 'default fleet');

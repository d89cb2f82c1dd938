/**
 * The commands that turn the checkout into an installed netpresence, shared by the package test
 * (which runs them on this machine) and the Dockerfile test (which checks the image runs the
 * same ones).
 */

/** Builds dist/ (the prepack script) and writes netpresence-<version>.tgz into `destination`. */
export const packArgs = (destination: string): string[] => ['pack', '--pack-destination', destination];

/** Installs the package with production dependencies only into the current folder. */
export const INSTALL_ARGS = ['install', '--omit=dev', '--no-audit', '--no-fund'];

/**
 * What the package test adds to INSTALL_ARGS on this machine: the npm cache first, and no install
 * scripts — better-sqlite3's script compiles SQLite, minutes on a shared machine; the test then
 * places the checkout's own compiled module (same Node ABI) instead. The image runs the script.
 */
export const TEST_INSTALL_EXTRA = ['--prefer-offline', '--ignore-scripts'];

/** The package.json of the folder the package is installed into: lets better-sqlite3 build. */
export const INSTALL_FOLDER_PACKAGE = { private: true, allowScripts: { 'better-sqlite3': true } };

/** Every subcommand; each answers --help from the installed package. */
export const SUBCOMMANDS = ['apiserver', 'manager', 'cell', 'propagator', 'trace', 'hub-namespace', 'up'];

/** What the package copies from the checkout before `npm pack` (the files the build reads). */
export const PACKED_SOURCES = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'README.md',
  'bin',
  'src',
  'config',
  'scripts/build.js',
  'scripts/build-dashboard.js',
];

/**
 * The page's addresses (hash routes) of its views, made in one place for the server (events link
 * to what they regard) and the page (pairs link to their page).
 *
 * Guarantees: dependency-free (the page imports it too); every part of a path is URI-encoded, so
 * a name with `/` or `?` cannot be read as another route.
 */

/** A pair's page: `#/pair/<hub namespace>/<network>/<location>`. */
export const pairHref = (hubNamespace: string, network: string, location: string): string =>
  `#/pair/${[hubNamespace, network, location].map(encodeURIComponent).join('/')}`;

/** A cell's page: `#/cell/<cell>`. */
export const cellHref = (cell: string): string => `#/cell/${encodeURIComponent(cell)}`;

/** The overview with these filters set: `#/?project=demo&network=default`. */
export const overviewHref = (filters: Record<string, string>): string =>
  `#/?${new URLSearchParams(filters).toString()}`;

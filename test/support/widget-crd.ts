/**
 * `widgets.example.com`: the custom kind the API server's tests write — a namespaced `Widget` in
 * group `example.com`, one served storage version `v1` with the given schema. `version` adds to
 * the version (subresources, printer columns), `names` to the names (short names, categories, or
 * another plural and kind, which name the CRD).
 */
export function widgetCrd(
  openAPIV3Schema: Record<string, unknown>,
  version: Record<string, unknown> = {},
  names: { plural?: string; kind?: string; [field: string]: unknown } = {},
) {
  const plural = names.plural ?? 'widgets';
  const kind = names.kind ?? 'Widget';
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { singular: kind.toLowerCase(), listKind: `${kind}List`, ...names, plural, kind },
      versions: [{ name: 'v1', served: true, storage: true, ...version, schema: { openAPIV3Schema } }],
    },
  };
}

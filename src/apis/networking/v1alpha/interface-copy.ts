/**
 * NetworkInterface copies (controllers.md §13, apis.md §7.2): the names and labels of the
 * read-only views of a cell interface on the hub (written back by the cell) and in the project
 * plane (projected by the manager).
 *
 * Guarantees: `interfaceCopyName` is the one place the name `<interface>.<cell>` is made, and
 * `interfaceOfCopyName` its inverse for one cell, so two cells holding interfaces of one name in
 * one hub namespace never write the same copy.
 */

/** `"true"` on every copy: what the projector's and the write-back's watches select. */
export const INTERFACE_PROJECTION_LABEL = 'networking.datumapis.com/network-interface-projection';
/** The cell whose interface a copy shows. */
export const SOURCE_CELL_LABEL = 'networking.datumapis.com/source-cell';
/** The claim holding the interface (`spec.claimRef.name`); absent while it is held by none. */
export const HELD_BY_LABEL = 'networking.datumapis.com/held-by';
/** On project copies only: the hub namespace of the hub copy a project copy shows. */
export const SOURCE_NAMESPACE_LABEL = 'networking.datumapis.com/source-namespace';

/** The selector of every copy, on the hub and in project planes. */
export const COPY_SELECTOR = `${INTERFACE_PROJECTION_LABEL}=true`;

/** The hub copy of interface `iface` in `cell` (and its project copy) is `<iface>.<cell>`. */
export function interfaceCopyName(iface: string, cell: string): string {
  return `${iface}.${cell}`;
}

/** The interface a copy of `cell` shows, by the copy's name; undefined for another cell's copy. */
export function interfaceOfCopyName(copyName: string, cell: string): string | undefined {
  const suffix = `.${cell}`;
  return copyName.endsWith(suffix) && copyName.length > suffix.length
    ? copyName.slice(0, -suffix.length)
    : undefined;
}

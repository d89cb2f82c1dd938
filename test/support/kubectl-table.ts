/**
 * Reads the tables kubectl prints (`get`, `api-resources`): the header's column names and the
 * rows as cells keyed by those names. kubectl pads columns with at least three spaces, so a name
 * with one space inside (`LAST SEEN`) stays one name, and a blank cell stays blank.
 */

export function headerOf(printed: string): string[] {
  return printed
    .split('\n')[0]
    .trim()
    .split(/\s{2,}/);
}

/** Every row as `{COLUMN: cell}`; each cell is cut where its column starts in the header. */
export function rowsOf(printed: string): Record<string, string>[] {
  const [header, ...lines] = printed.trimEnd().split('\n');
  const names = headerOf(header);
  let from = 0;
  const starts = names.map((name) => {
    const start = header.indexOf(name, from);
    from = start + name.length;
    return start;
  });
  return lines.map((line) =>
    Object.fromEntries(names.map((name, i) => [name, line.slice(starts[i], starts[i + 1]).trim()])),
  );
}

/** The given columns of every row, in order. */
export function cellsOf(printed: string, ...columns: string[]): string[][] {
  return rowsOf(printed).map((row) => columns.map((column) => row[column]));
}

/**
 * The overview: the grid of (project, network) rows × location columns, its filters, search and
 * counts. Filters run on the server over the aggregated overview; the page shows one page of rows.
 *
 * Guarantees (the filter path, fast by design): a filter's request leaves from the input's own
 * event handler (no effect, no debounce, no re-render before it); an answer is shown only for
 * the filters now set and when newer than the one shown; a row is re-rendered only when its
 * server signature or the columns shown changed, so typing re-renders the form alone and a new
 * answer renders just the rows it did not have.
 */
import { memo } from 'preact/compat';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import {
  getJson,
  type OverviewResponse as Page,
  type PairView,
  type RowView,
  type SignedRow,
} from './api.ts';
import { pairHref, StateBadge } from './state.tsx';

export interface Filters {
  project: string;
  network: string;
  location: string;
  state: string;
  search: string;
  page: number;
}

const STATES = ['ready', 'refused', 'waiting', 'unbound'];
/** Rows per page: a screenful or two at 1280×800, and what a filter's answer has to draw. */
const PAGE_SIZE = 20;

/** The filters a link names (`#/?project=demo&location=eu-west-1`), over none. */
export function filtersOf(query: string): Filters {
  const params = new URLSearchParams(query);
  const text = (field: keyof Filters) => params.get(field) ?? '';
  return {
    project: text('project'),
    network: text('network'),
    location: text('location'),
    state: text('state'),
    search: text('search'),
    page: Number(params.get('page')) || 1,
  };
}

/** A pair's lines of detail, each one string (one text node: a page of pairs is many nodes). */
function detailsOf(pair: PairView): string[] {
  const lines: string[] = [];
  const { bindings, context } = pair;
  if (bindings.total > 0) {
    const worst = bindings.worst && bindings.worst.status !== 'True' ? ` · ${bindings.worst.reason}` : '';
    lines.push(`bindings ${bindings.ready}/${bindings.total}${worst}`);
  }
  if (context) {
    const ready = context.ready
      ? context.ready.status === 'True'
        ? 'Ready'
        : context.ready.reason
      : 'pending';
    lines.push(`context ${ready}${context.cidr ? ` · ${context.cidr}` : ''}`);
  }
  if (bindings.total > 0)
    lines.push(`hub copy ${pair.hubCopy ? 'yes' : 'no'} · policy ${pair.policy ? 'yes' : 'no'}`);
  for (const c of pair.cells)
    lines.push(
      `${c.cell}: ${c.copy ? 'copy' : 'no copy'}, ${c.bound}/${c.claims} bound${c.refused ? `, ${c.refused} refused` : ''}`,
    );
  return lines;
}

function PairCell({ row, pair }: { row: RowView; pair: PairView }) {
  const label = `${row.project}/${row.network} in ${pair.location}: `;
  const body = (
    <>
      <StateBadge state={pair.state} words={pair.words} />
      {detailsOf(pair).map((line) => (
        <span class="detail" key={line}>
          {line}
        </span>
      ))}
    </>
  );
  return (
    <td class={`pair pair-${pair.state}`} data-location={pair.location}>
      {pair.hubNamespace ? (
        <a class="pair-link" href={pairHref(pair.hubNamespace, row.network, pair.location)}>
          <span class="visually-hidden">{label}</span>
          {body}
        </a>
      ) : (
        body
      )}
    </td>
  );
}

/** A row of the grid; drawn again only when its signature or the columns change. */
const Row = memo(
  ({ row }: { row: SignedRow; columns: string }) => (
    <tr data-row={`${row.project}/${row.network}`}>
      <th scope="row">{`${row.project}${row.namespace !== 'default' ? `/${row.namespace}` : ''} / ${row.network}`}</th>
      {row.pairs.map((pair) => (
        <PairCell key={pair.location} row={row} pair={pair} />
      ))}
    </tr>
  ),
  (before, after) => before.row.sig === after.row.sig && before.columns === after.columns,
);

/** A select's options; a list equal to the last one (1,000 projects) is not diffed again. */
const Options = memo(
  ({ options }: { options: string[] }) => (
    <>
      {options.map((o) => (
        <option key={o} value={o}>
          {o}
        </option>
      ))}
    </>
  ),
  (before, after) =>
    before.options.length === after.options.length && before.options.every((o, i) => o === after.options[i]),
);

export function OverviewPage({ version, initial }: { version: number; initial: Filters }) {
  const [filters, setFilters] = useState<Filters>(initial);
  const [page, setPage] = useState<Page | undefined>();
  const [error, setError] = useState<string | undefined>();
  const shown = useRef(filters);
  const asked = useRef(0);
  const answered = useRef(0);
  /**
   * Asks for the page these filters select. An answer is shown when it is newer than the one
   * shown and for the filters now set: a stream of changes never holds the grid still, and an
   * answer for filters since changed never replaces the grid.
   */
  const load = (wanted: Filters) => {
    const question = ++asked.current;
    const showable = () => question > answered.current && shown.current === wanted;
    getJson<Page>('/api/overview', { ...wanted, pageSize: PAGE_SIZE }).then(
      (loaded) => {
        if (!showable()) return;
        answered.current = question;
        setPage(loaded);
        setError(undefined);
        document.body.dataset.overviewVersion = String(loaded.version);
      },
      (err: Error) => {
        if (!showable()) return;
        answered.current = question;
        setError(err.message);
      },
    );
  };
  // On the first render and on every change the server announces: the same filters, afresh. A
  // layout effect runs as soon as the render is done (a plain one waits for a frame).
  useLayoutEffect(() => load(shown.current), [version]);
  const change = (next: Filters) => {
    shown.current = next;
    load(next);
    setFilters(next);
  };
  const set = (field: keyof Filters) => (event: Event) =>
    change({ ...filters, [field]: (event.target as HTMLInputElement).value, page: 1 });
  if (!page) return <p>{error ?? 'Loading the overview…'}</p>;
  const { totals } = page;
  const columns = page.locations.join('\u0000');
  const select = (field: keyof Filters, label: string, options: string[]) => (
    <label>
      {label}
      <select value={filters[field]} onChange={set(field)} name={field}>
        <option value="">all</option>
        <Options options={options} />
      </select>
    </label>
  );
  return (
    <section aria-labelledby="overview-title">
      <h2 id="overview-title">Where each network is present</h2>
      <dl class="counts">
        <div>
          <dt>Bindings Ready</dt>
          <dd data-testid="bindings-ready">
            {totals.bindingsReady} / {totals.bindings}
          </dd>
        </div>
        <div>
          <dt>Claims Bound</dt>
          <dd data-testid="claims-bound">
            {totals.claimsBound} / {totals.claims}
          </dd>
        </div>
        <div>
          <dt>Refusals</dt>
          <dd>
            {Object.entries(totals.refusals)
              .map(([reason, count]) => `${reason} ${count}`)
              .join(', ') || 'none'}
          </dd>
        </div>
      </dl>
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        {select('project', 'Project', page.projects)}
        {select('network', 'Network', page.networks)}
        {select(
          'location',
          'Location',
          page.locations.length === 1 && filters.location ? [filters.location] : page.locations,
        )}
        {select('state', 'State', STATES)}
        <label>
          Search
          <input
            type="search"
            name="search"
            value={filters.search}
            onInput={set('search')}
            placeholder="project, network or binding"
          />
        </label>
      </form>
      <p aria-live="polite" data-testid="matching">
        {page.matching} rows{page.pages > 1 ? `, page ${page.page} of ${page.pages}` : ''}
      </p>
      <div class="grid-wrap">
        <table class="grid" style={{ width: `${13 + 11 * page.locations.length}rem` }}>
          <caption class="visually-hidden">Each network (rows) in each location (columns)</caption>
          <thead>
            <tr>
              <th scope="col">Project / network</th>
              {page.locations.map((l) => (
                <th scope="col" key={l}>
                  {l}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {page.rows.map((row) => (
              <Row key={`${row.project}/${row.namespace}/${row.network}`} row={row} columns={columns} />
            ))}
          </tbody>
        </table>
      </div>
      {page.pages > 1 && (
        <nav aria-label="Pages" class="pages">
          <button
            type="button"
            disabled={page.page <= 1}
            onClick={() => change({ ...filters, page: page.page - 1 })}
          >
            Previous
          </button>
          <button
            type="button"
            disabled={page.page >= page.pages}
            onClick={() => change({ ...filters, page: page.page + 1 })}
          >
            Next
          </button>
        </nav>
      )}
    </section>
  );
}

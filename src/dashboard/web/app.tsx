/**
 * The dashboard page: a hash-routed Preact app — overview, pair, cell, events, throughput —
 * that refetches the view it shows whenever the server's stream says something changed.
 *
 * Guarantees: every state is written in words beside its colour; every pair is a link, so the
 * keyboard reaches each one with Tab; headings, tables with header cells and a nav landmark
 * structure each view; nothing is loaded from anywhere but the dashboard's own server.
 */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { subscribe } from './api.ts';
import { CellPage } from './cell-page.tsx';
import { EventsPage } from './events-page.tsx';
import { filtersOf, OverviewPage } from './overview-page.tsx';
import { PairPage } from './pair-page.tsx';
import { ThroughputPage } from './throughput-page.tsx';
import 'uplot/dist/uPlot.min.css';
import './app.css';

function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const changed = () => setHash(location.hash);
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return hash;
}

function route(hash: string, version: number) {
  const [path, query = ''] = hash.replace(/^#\/?/, '').split('?');
  const [view, ...rest] = path.split('/').map(decodeURIComponent);
  switch (view) {
    case 'pair':
      return <PairPage hubNamespace={rest[0]} network={rest[1]} location={rest[2]} version={version} />;
    case 'cell':
      return <CellPage name={rest[0]} version={version} />;
    case 'events':
      return <EventsPage version={version} />;
    case 'throughput':
      return <ThroughputPage version={version} />;
    default:
      // A link with other filters (from the events view) starts a fresh overview.
      return <OverviewPage key={query} version={version} initial={filtersOf(query)} />;
  }
}

function App() {
  const hash = useHash();
  const [version, setVersion] = useState(0);
  const [live, setLive] = useState(false);
  useEffect(() => subscribe(() => setVersion((v) => v + 1), setLive), []);
  const current = hash.replace(/^#\/?/, '').split(/[/?]/)[0] || 'overview';
  const link = (to: string, label: string) => (
    <a href={`#/${to === 'overview' ? '' : to}`} aria-current={current === to ? 'page' : undefined}>
      {label}
    </a>
  );
  return (
    <>
      <header>
        <h1>netpresence</h1>
        <nav aria-label="Views">
          {link('overview', 'Overview')}
          {link('events', 'Events')}
          {link('throughput', 'Throughput')}
        </nav>
        <p class={`live ${live ? 'on' : 'off'}`} role="status" data-testid="live">
          {live ? 'Live' : 'Reconnecting…'}
        </p>
      </header>
      <main>{route(hash, version)}</main>
    </>
  );
}

const root = document.getElementById('app')!;
// The server's placeholder ("Loading…") is replaced, not kept beside the app.
root.replaceChildren();
render(<App />, root);

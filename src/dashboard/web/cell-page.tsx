/** A cell: its ServingLocation, the contexts carried to it, its claims and interfaces. */
import { getJson, type CellDetail } from './api.ts';
import { useLiveFetch } from './live-fetch.ts';
import { conditionState, conditionWords, StateBadge } from './state.tsx';

export function CellPage({ name, version }: { name: string; version: number }) {
  const { data: detail, error } = useLiveFetch(name, version, () =>
    getJson<CellDetail>('/api/cell', { name }),
  );
  return (
    <section aria-labelledby="cell-title">
      <h2 id="cell-title">Cell {name}</h2>
      {!detail && <p>{error ?? 'Loading…'}</p>}
      {detail && (
        <>
          <p>Serves: {detail.servingLocations.join(', ') || 'no location (no ServingLocation delivered)'}</p>
          <h3>Network contexts</h3>
          <ul>
            {detail.contexts.map((c) => (
              <li key={`${c.namespace}/${c.name}`}>
                {c.namespace}/{c.name}: network {c.network} in {c.location}
              </li>
            ))}
          </ul>
          <h3>Claims</h3>
          <ul>
            {detail.claims.map((c) => (
              <li key={`${c.namespace}/${c.name}`}>
                {c.namespace}/{c.name} (network {c.network}):{' '}
                <StateBadge state={conditionState(c.ready)} words={conditionWords('Ready', c.ready)} />
                {c.ready && c.ready.status !== 'True' ? ` ${c.ready.message}` : ''}
              </li>
            ))}
          </ul>
          <h3>Interfaces</h3>
          <ul>
            {detail.interfaces.map((i) => (
              <li key={`${i.namespace}/${i.name}`}>
                {i.namespace}/{i.name}: {i.phase ?? 'no phase'}
                {i.claim ? `, held by ${i.claim}` : ', retained'}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

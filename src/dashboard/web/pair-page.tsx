/**
 * A pair: the hop chain of each binding holding it, as `netpresence trace binding` computes it
 * (the server runs src/trace; each binding's trace is fetched on its own, so the bindings,
 * claims and copies, read from the stores, show at once), then the claims and interfaces in each cell serving the location,
 * and the interface copies the project plane shows (controllers.md §13.2).
 */
import { getJson, type BindingTrace, type PairDetail } from './api.ts';
import { useLiveFetch } from './live-fetch.ts';
import { cellHref, conditionState, conditionWords, StateBadge } from './state.tsx';

/** An interface's or an IPClaim's addresses, one a line, each with its gateway when it has one. */
function Addresses({ addresses }: { addresses: { address: string; gateway?: string }[] }) {
  return (
    <>
      {addresses.map((a) => (
        <div key={a.address}>
          {a.address} {a.gateway ? `(${a.gateway})` : ''}
        </div>
      ))}
    </>
  );
}

const HOP_WORDS: Record<string, string> = {
  ok: 'ok',
  missing: 'MISSING',
  refusing: 'REFUSING',
  waiting: 'WAITING',
  unreachable: 'UNREADABLE',
  unchecked: 'not checked',
};
const HOP_STATE: Record<string, string> = {
  ok: 'ready',
  missing: 'refused',
  refusing: 'refused',
  waiting: 'waiting',
  unreachable: 'refused',
  unchecked: 'unbound',
};

/** A binding holding the pair, and its hops (traced on the server, a request of its own). */
function TraceView({ namespace, binding, version }: { namespace: string; binding: string; version: number }) {
  const { data: trace, error } = useLiveFetch(`${namespace}/${binding}`, version, () =>
    getJson<BindingTrace>('/api/trace', { namespace, name: binding }),
  );
  return (
    <article aria-labelledby={`trace-${binding}`}>
      <h3 id={`trace-${binding}`}>Binding {binding}</h3>
      {!trace && <p>{error ?? 'Tracing…'}</p>}
      {trace && (
        <>
          <ol class="hops" data-testid="hops">
            {trace.hops.map((hop, i) => (
              <li key={i} class="hop" data-hop={hop.id} data-state={hop.state}>
                <StateBadge
                  state={HOP_STATE[hop.state] ?? hop.state}
                  words={HOP_WORDS[hop.state] ?? hop.state}
                />{' '}
                <strong class="hop-title">{hop.title}</strong> <span class="hop-plane">{hop.plane}</span>{' '}
                <span class="hop-object">{hop.object}</span>
                {hop.condition && (
                  <span class="hop-condition">
                    {' '}
                    {hop.condition.type}={hop.condition.status} {hop.condition.reason}
                  </span>
                )}
                {(hop.note ?? (hop.state !== 'ok' ? hop.condition?.message : undefined)) && (
                  <p class="hop-note">{hop.note ?? hop.condition?.message}</p>
                )}
                {hop.state !== 'ok' && hop.advice && <p class="hop-advice">What to do: {hop.advice}</p>}
              </li>
            ))}
          </ol>
          <p class="verdict" data-testid="verdict">
            {trace.verdict}
          </p>
        </>
      )}
    </article>
  );
}

export function PairPage(props: {
  hubNamespace: string;
  network: string;
  location: string;
  version: number;
}) {
  const { hubNamespace, network, location, version } = props;
  const { data: detail, error } = useLiveFetch(`${hubNamespace}/${network}/${location}`, version, () =>
    getJson<PairDetail>('/api/pair', { hubNamespace, network, location }),
  );
  return (
    <section aria-labelledby="pair-title">
      <h2 id="pair-title">
        Network {network} in {location}
      </h2>
      <p>Hub namespace {hubNamespace}</p>
      {!detail && <p>{error ?? 'Loading…'}</p>}
      {detail && detail.bindings.length === 0 && <p>No binding holds this pair.</p>}
      {detail?.bindings.map((binding) => (
        <TraceView key={binding} namespace={hubNamespace} binding={binding} version={version} />
      ))}
      {detail && detail.interfaces.length > 0 && (
        <>
          <h3 id="interfaces-title">Claims and interfaces</h3>
          <div class="grid-wrap">
            <table data-testid="interfaces" aria-labelledby="interfaces-title">
              <thead>
                <tr>
                  <th scope="col">Cell</th>
                  <th scope="col">Claim</th>
                  <th scope="col">Interface</th>
                  <th scope="col">Addresses (gateway)</th>
                  <th scope="col">MTU</th>
                  <th scope="col">Data plane</th>
                  <th scope="col">Ready</th>
                </tr>
              </thead>
              <tbody>
                {detail.interfaces.map((i) => (
                  <tr key={`${i.cell}/${i.claim}`}>
                    <td>
                      <a href={cellHref(i.cell)}>{i.cell}</a>
                    </td>
                    <td>{i.claim}</td>
                    <td>
                      {i.iface ?? '—'} {i.phase ? `(${i.phase})` : ''}
                    </td>
                    <td>
                      <Addresses addresses={i.addresses} />
                    </td>
                    <td>{i.mtu ?? '—'}</td>
                    <td>
                      {Object.entries(i.dataPlane).map(([type, c]) => (
                        <div key={type}>
                          <StateBadge state={conditionState(c)} words={conditionWords(type, c)} />
                          {c && c.status === 'False' ? ` ${c.message}` : ''}
                        </div>
                      ))}
                    </td>
                    <td>
                      <StateBadge
                        state={conditionState(i.claimConditions.Ready)}
                        words={conditionWords('Ready', i.claimConditions.Ready)}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      {detail && (
        <>
          <h3 id="copies-title">
            Interface copies in project {detail.project ?? '(not routed)'}
            {detail.namespace ? `, namespace ${detail.namespace}` : ''}
          </h3>
          {detail.copies.length === 0 ? (
            <p>No interface on this network in {location} is shown in the project yet.</p>
          ) : (
            <div class="grid-wrap">
              <table data-testid="copies" aria-labelledby="copies-title">
                <thead>
                  <tr>
                    <th scope="col">Copy</th>
                    <th scope="col">Cell</th>
                    <th scope="col">Held by claim</th>
                    <th scope="col">Addresses (gateway)</th>
                    <th scope="col">Phase</th>
                    <th scope="col">Conditions</th>
                  </tr>
                </thead>
                <tbody>
                  {detail.copies.map((c) => (
                    <tr key={c.name} data-copy={c.name}>
                      <td>{c.name}</td>
                      <td>
                        <a href={cellHref(c.cell)}>{c.cell}</a>
                      </td>
                      <td>{c.heldBy ?? 'none (retained)'}</td>
                      <td>
                        <Addresses addresses={c.addresses} />
                      </td>
                      <td>{c.phase ?? '—'}</td>
                      <td>
                        {Object.entries(c.conditions).map(([type, condition]) => (
                          <div key={type}>
                            <StateBadge
                              state={conditionState(condition)}
                              words={conditionWords(type, condition)}
                            />
                          </div>
                        ))}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </section>
  );
}

/**
 * Warning events of the platform, the hub, the project planes and the cells, newest first, each
 * linked to the page's view of what it regards (a pair, a cell, the filtered overview).
 */
import { getJson, type EventView } from './api.ts';
import { useLiveFetch } from './live-fetch.ts';

function regardingLink(event: EventView) {
  const { kind, namespace, name } = event.regarding;
  const text = `${kind ?? ''} ${namespace ? `${namespace}/` : ''}${name ?? ''}`;
  return event.href ? <a href={event.href}>{text}</a> : <span>{text}</span>;
}

export function EventsPage({ version }: { version: number }) {
  const { data } = useLiveFetch('events', version, () => getJson<{ events: EventView[] }>('/api/events'));
  const events = data?.events;
  return (
    <section aria-labelledby="events-title">
      <h2 id="events-title">Warnings</h2>
      {!events && <p>Loading…</p>}
      {events && events.length === 0 && <p>No Warning events.</p>}
      {events && events.length > 0 && (
        <div class="grid-wrap">
          <table data-testid="events">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Plane</th>
                <th scope="col">Reason</th>
                <th scope="col">Regarding</th>
                <th scope="col">Note</th>
              </tr>
            </thead>
            <tbody>
              {events.map((e, i) => (
                <tr key={i} data-plane={e.plane}>
                  <td>
                    <time dateTime={e.time}>{e.time}</time>
                  </td>
                  <td>{e.plane}</td>
                  <td>
                    <span class="state state-refused">{e.reason}</span>
                  </td>
                  <td>{regardingLink(e)}</td>
                  <td>{e.note}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

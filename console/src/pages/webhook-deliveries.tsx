import { useEffect, useState } from 'preact/hooks';
import { api, projectPath, qs } from '../api';
import type { DeadLetter, WebhookDelivery, WebhookEndpoint } from '../types';
import { Empty, ErrorNote, Field, Loading, Pager, useLoad, when } from '../ui';
import { DeliveriesTable } from './webhook-delivery-table';

// The delivery log (filter by endpoint and status, 50 a page) and the dead letters with their
// replay: a new delivery with the same webhook-id, so a receiver that deduplicates still can.

const LIMIT = 50;
const STATUSES = ['pending', 'sending', 'delivered', 'dead', 'cancelled'];
/** While a delivery is on its way the list refreshes itself this often. */
const POLL_MS = 2000;

export function Deliveries({ projectId, endpoints, tick, onChange }: { projectId: string; endpoints: WebhookEndpoint[]; tick: number; onChange: () => void }) {
  const [endpointId, setEndpointId] = useState('');
  const [status, setStatus] = useState('');
  const [offset, setOffset] = useState(0);
  const list = useLoad(
    () => api<WebhookDelivery[]>('GET', projectPath(projectId, `/webhooks/deliveries${qs({ endpoint_id: endpointId, status, limit: LIMIT, offset })}`)),
    [projectId, endpointId, status, offset, tick],
  );
  const moving = list.data?.some((d) => d.status === 'pending' || d.status === 'sending') ?? false;
  useEffect(() => {
    if (!moving) return;
    const timer = setTimeout(list.reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [list.data, moving]);
  // Whatever changed here may have made a dead letter: the dead-letter list follows.
  useEffect(() => {
    if (list.data) onChange();
  }, [list.data]);
  const name = (id: string) => endpoints.find((e) => e.id === id)?.name ?? id.slice(0, 8);
  const filtered = endpointId !== '' || status !== '';
  return (
    <section aria-labelledby="deliveries-h">
      <div class="title-row">
        <h2 id="deliveries-h">Deliveries</h2>
        <button type="button" onClick={list.reload}>
          Refresh deliveries
        </button>
      </div>
      <form class="filters" aria-label="Filter deliveries" onSubmit={(e) => e.preventDefault()}>
        <Field label="Endpoint">
          {(id) => (
            <select
              id={id}
              value={endpointId}
              onChange={(e) => {
                setEndpointId((e.target as HTMLSelectElement).value);
                setOffset(0);
              }}
            >
              <option value="">any</option>
              {endpoints.map((e) => (
                <option key={e.id} value={e.id}>
                  {e.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Delivery status">
          {(id) => (
            <select
              id={id}
              value={status}
              onChange={(e) => {
                setStatus((e.target as HTMLSelectElement).value);
                setOffset(0);
              }}
            >
              <option value="">any</option>
              {STATUSES.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          )}
        </Field>
      </form>
      {list.loading && !list.data && <Loading what="deliveries" />}
      <ErrorNote error={list.error} />
      {list.data?.length === 0 && (
        <Empty>
          <p>{filtered || offset ? 'No deliveries match these filters.' : 'No deliveries yet. Send a test ping to an endpoint above, or make a call: its end is delivered to every subscribed endpoint.'}</p>
        </Empty>
      )}
      {list.data && list.data.length > 0 && <DeliveriesTable deliveries={list.data} endpointName={name} />}
      <Pager offset={offset} limit={LIMIT} count={list.data?.length ?? 0} onChange={setOffset} />
    </section>
  );
}

interface Replayed {
  delivery_id: string;
  webhook_id: string;
  replay_of: string;
}

export function DeadLetters({ projectId, endpoints, tick, onReplayed }: { projectId: string; endpoints: WebhookEndpoint[]; tick: number; onReplayed: () => void }) {
  const list = useLoad(() => api<DeadLetter[]>('GET', projectPath(projectId, `/webhooks/dead-letters${qs({ limit: LIMIT })}`)), [projectId, tick]);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<Replayed | null>(null);
  const endpoint = (id: string | null | undefined) => endpoints.find((e) => e.id === id);
  const replay = async (d: DeadLetter) => {
    setBusy(d.id);
    setError(null);
    setDone(null);
    try {
      setDone(await api<Replayed>('POST', projectPath(projectId, `/webhooks/${d.endpoint_id}/dead-letters/${d.id}/replay`)));
      onReplayed();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(null);
    }
  };
  return (
    <section aria-labelledby="dead-h">
      <h2 id="dead-h">Dead letters</h2>
      <p class="muted">Deliveries that failed every attempt. Fix the receiver, then replay: the replay is a new delivery with the same <code>webhook-id</code>.</p>
      <ErrorNote error={list.error} />
      <ErrorNote error={error} />
      {done && (
        <p class="notice" role="status">
          Replay queued as delivery <code>{done.delivery_id.slice(0, 8)}</code> with webhook-id <code>{done.webhook_id}</code>.
        </p>
      )}
      {list.loading && !list.data && <Loading what="dead letters" />}
      {list.data?.length === 0 && (
        <Empty>
          <p>No dead letters: every delivery arrived or is still being retried.</p>
        </Empty>
      )}
      {list.data && list.data.length > 0 && (
        <div class="table-wrap">
          <table data-testid="dead-letters">
            <thead>
              <tr>
                <th scope="col">Failed</th>
                <th scope="col">Event</th>
                <th scope="col">Endpoint</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last error</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((d) => {
                const ep = endpoint(d.endpoint_id);
                return (
                  <tr key={d.id}>
                    <td>{when(d.updated_at)}</td>
                    <td>{d.event_type ?? '—'}</td>
                    <td>{d.kind === 'agent' ? 'agent webhook' : (ep?.name ?? d.endpoint_id?.slice(0, 8) ?? '—')}</td>
                    <td>
                      {d.attempts} of {d.max_attempts}
                    </td>
                    <td class="wrap">{d.last_error ?? '—'}</td>
                    <td>
                      {d.kind === 'agent' || !d.endpoint_id ? (
                        <small class="muted">agent webhooks are not replayed</small>
                      ) : ep?.status === 'disabled' ? (
                        <small class="muted">endpoint disabled</small>
                      ) : (
                        <button type="button" disabled={busy === d.id} aria-label={`Replay ${d.event_type ?? 'delivery'} to ${ep?.name ?? 'endpoint'}`} onClick={() => void replay(d)}>
                          Replay
                        </button>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

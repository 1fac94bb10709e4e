import type { WebhookDelivery } from '../types';
import { Badge, when } from '../ui';

// One table of webhook deliveries (the webhooks page and a session's page): each row is one
// delivery with its attempts so far, the receiver's last status code and the last error.

const tone = (s: WebhookDelivery['status']) => (s === 'delivered' ? 'good' : s === 'dead' ? 'bad' : s === 'cancelled' ? undefined : 'warn');

export function DeliveriesTable({ deliveries, endpointName }: { deliveries: WebhookDelivery[]; endpointName?: (id: string) => string }) {
  return (
    <div class="table-wrap">
      <table data-testid="deliveries">
        <thead>
          <tr>
            <th scope="col">Queued</th>
            <th scope="col">Event</th>
            <th scope="col">To</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last status code</th>
            <th scope="col">Last error</th>
            <th scope="col">webhook-id</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((d) => (
            <tr key={d.id} data-delivery={d.id}>
              <td>{when(d.created_at)}</td>
              <td>{d.event_type}</td>
              <td class="wrap">
                {d.endpoint_id && endpointName ? `${endpointName(d.endpoint_id)} · ` : d.kind === 'agent' ? 'agent webhook · ' : ''}
                {d.url}
              </td>
              <td>
                <Badge tone={tone(d.status)}>{d.status}</Badge>
                {d.delivered_at && <small class="muted"> {when(d.delivered_at)}</small>}
              </td>
              <td>
                {d.attempts} of {d.max_attempts}
              </td>
              <td>{d.last_status ?? '—'}</td>
              <td class="wrap">{d.last_error ?? '—'}</td>
              <td>
                <code>{d.webhook_id}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

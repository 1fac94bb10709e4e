import { useState } from 'preact/hooks';
import { api, projectPath } from '../api';
import type { WebhookEndpoint } from '../types';
import { Badge, ConfirmButton, Empty, ErrorNote, Loading, SecretOnce, useLoad, when } from '../ui';
import { DeadLetters, Deliveries } from './webhook-deliveries';
import { EndpointForm } from './webhook-endpoint-form';

// Webhook endpoints of the project: create (the signing secret shown once), edit in place,
// disable and enable again, test ping; below them the delivery log and the dead letters.

interface PingResult {
  delivery_id: string;
  queued: boolean;
}

export function WebhooksPage({ projectId }: { projectId: string }) {
  const list = useLoad(() => api<WebhookEndpoint[]>('GET', projectPath(projectId, '/webhooks?include_disabled=true&limit=200')), [projectId]);
  const [secret, setSecret] = useState<{ name: string; value: string } | null>(null);
  const [editing, setEditing] = useState<WebhookEndpoint | null>(null);
  const [rowError, setRowError] = useState<unknown>(null);
  const [note, setNote] = useState<string | null>(null);
  // `activity` reloads the delivery log (a ping, a replay); `deadTick` the dead letters.
  const [activity, setActivity] = useState(0);
  const [deadTick, setDeadTick] = useState(0);
  const endpoints = list.data ?? [];
  const row = async (fn: () => Promise<void>) => {
    setRowError(null);
    setNote(null);
    try {
      await fn();
    } catch (err) {
      setRowError(err);
    }
    list.reload();
    setActivity((n) => n + 1);
  };
  const created = (c: { name: string; signing_secret: string }) => {
    setSecret({ name: c.name, value: c.signing_secret });
    list.reload();
  };
  const updated = (e: WebhookEndpoint) => {
    setEditing(null);
    setRowError(null);
    setNote(`Saved ${e.name} (revision ${e.revision}).`);
    list.reload();
  };
  return (
    <main>
      <h1>Webhooks</h1>
      <section aria-labelledby="endpoints-h">
        <h2 id="endpoints-h">Endpoints</h2>
        {secret && <SecretOnce label={`Signing secret of ${secret.name}`} value={secret.value} onDone={() => setSecret(null)} />}
        {list.loading && !list.data && <Loading what="endpoints" />}
        <ErrorNote error={list.error} />
        <ErrorNote error={rowError} />
        {note && (
          <p class="notice" role="status">
            {note}
          </p>
        )}
        {list.data?.length === 0 && (
          <Empty>
            <p>No webhook endpoints. Add one below to be told when calls end; then send it a test ping.</p>
          </Empty>
        )}
        {endpoints.length > 0 && (
          <div class="table-wrap">
            <table data-testid="endpoints">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">URL</th>
                  <th scope="col">Events</th>
                  <th scope="col">Status</th>
                  <th scope="col">Secret</th>
                  <th scope="col">Created</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {endpoints.map((e) => (
                  <tr key={e.id}>
                    <td>{e.name}</td>
                    <td class="wrap">{e.url}</td>
                    <td>{e.event_types.length ? e.event_types.join(', ') : 'all events'}</td>
                    <td>
                      <Badge tone={e.status === 'active' ? 'good' : undefined}>{e.status}</Badge>
                      <small class="muted"> rev {e.revision}</small>
                    </td>
                    <td>
                      <code>…{e.secret_hint}</code>
                    </td>
                    <td>{when(e.created_at)}</td>
                    <td class="row">
                      {e.status === 'active' ? (
                        <>
                          <button
                            type="button"
                            aria-label={`Send a test ping to ${e.name}`}
                            onClick={() =>
                              void row(async () => {
                                const r = await api<PingResult>('POST', projectPath(projectId, `/webhooks/${e.id}/test`));
                                setNote(r.queued ? `Ping queued (delivery ${r.delivery_id.slice(0, 8)}); it appears under Deliveries.` : 'A ping to this endpoint is already waiting; it was not queued twice.');
                              })
                            }
                          >
                            Test ping
                          </button>
                          <button type="button" aria-label={`Edit ${e.name}`} onClick={() => setEditing(e)}>
                            Edit
                          </button>
                          <ConfirmButton label="Disable" question={`Disable ${e.name}? Its queued deliveries are cancelled.`} onConfirm={() => row(() => api('DELETE', projectPath(projectId, `/webhooks/${e.id}`)))} />
                        </>
                      ) : (
                        <>
                          <button
                            type="button"
                            aria-label={`Enable ${e.name}`}
                            onClick={() =>
                              void row(async () => {
                                await api('PATCH', projectPath(projectId, `/webhooks/${e.id}`), { status: 'active' });
                                setNote(`${e.name} is enabled again; deliveries cancelled while it was disabled stay cancelled.`);
                              })
                            }
                          >
                            Enable
                          </button>
                          <button type="button" aria-label={`Edit ${e.name}`} onClick={() => setEditing(e)}>
                            Edit
                          </button>
                        </>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {editing ? (
          <EndpointForm key={editing.id} projectId={projectId} editing={editing} onUpdated={updated} onCancel={() => setEditing(null)} />
        ) : (
          <EndpointForm projectId={projectId} onCreated={created} />
        )}
      </section>
      <Deliveries projectId={projectId} endpoints={endpoints} tick={activity} onChange={() => setDeadTick((n) => n + 1)} />
      <DeadLetters projectId={projectId} endpoints={endpoints} tick={deadTick} onReplayed={() => setActivity((n) => n + 1)} />
    </main>
  );
}

import { api, ApiError, projectPath, qs } from '../api';
import { navigate, useLocation } from '../router';
import type { Agent, TranscriptEntry, VoiceSession, WebhookDelivery } from '../types';
import { DeliveriesTable } from './webhook-delivery-table';
import { Badge, Empty, ErrorNote, Field, Loading, Pager, useLoad, usd, when } from '../ui';

// Sessions: every filter of spec §4.3 (status, agent, from, to, has insights) kept in the URL,
// newest first, 50 a page; and one session with its timeline, money, transcript and webhooks.

const LIMIT = 50;
const FILTERS = ['status', 'agent_id', 'from', 'to', 'has_insights'] as const;

const tone = (s: string) => (s === 'completed' ? 'good' : s === 'failed' ? 'bad' : s === 'active' ? 'warn' : undefined);

/** datetime-local value → ISO with the browser's offset, as the service wants. */
function localToIso(v: string): string {
  return v ? new Date(v).toISOString() : '';
}
function isoToLocal(v: string | null): string {
  const d = new Date(v ?? '');
  // A hand-edited address may hold anything; the service says what is wrong with it.
  if (Number.isNaN(d.getTime())) return '';
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

export function SessionsPage({ projectId }: { projectId: string }) {
  const { query } = useLocation();
  const offset = Number(query.get('offset') ?? 0) || 0;
  const filters = Object.fromEntries(FILTERS.map((f) => [f, query.get(f) ?? ''])) as Record<(typeof FILTERS)[number], string>;
  const agents = useLoad(() => api<Agent[]>('GET', projectPath(projectId, '/agents?include_inactive=true&limit=200')), [projectId]);
  const list = useLoad(
    () => api<VoiceSession[]>('GET', projectPath(projectId, `/voice/sessions${qs({ ...filters, limit: LIMIT, offset })}`)),
    [projectId, query.toString()],
  );
  const setQuery = (patch: Record<string, string | number>) => {
    const next = new URLSearchParams(query);
    for (const [k, v] of Object.entries(patch)) {
      if (v === '' || v === 0) next.delete(k);
      else next.set(k, String(v));
    }
    if (!('offset' in patch)) next.delete('offset');
    const s = next.toString();
    navigate(`/p/${projectId}/sessions${s ? `?${s}` : ''}`, true);
  };
  // A hand-edited address can hold a bad filter: the 422 names it (`query.from`), shown at its field.
  const bad = list.error instanceof ApiError ? list.error.fieldErrors() : {};
  const agentName = (id: string | null) => agents.data?.find((a) => a.id === id)?.name ?? (id ? id.slice(0, 8) : '—');
  return (
    <main>
      <h1>Sessions</h1>
      <form class="filters" aria-label="Filter sessions" onSubmit={(e) => e.preventDefault()}>
        <Field label="Status" error={bad['query.status']}>
          {(id) => (
            <select id={id} value={filters.status} onChange={(e) => setQuery({ status: (e.target as HTMLSelectElement).value })}>
              <option value="">any</option>
              {['created', 'active', 'completed', 'failed'].map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Agent" error={bad['query.agent_id']}>
          {(id) => (
            <select id={id} value={filters.agent_id} onChange={(e) => setQuery({ agent_id: (e.target as HTMLSelectElement).value })}>
              <option value="">any</option>
              {agents.data?.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="From" error={bad['query.from']}>
          {(id, d) => <input id={id} aria-describedby={d} aria-invalid={bad['query.from'] ? true : undefined} type="datetime-local" value={isoToLocal(filters.from || null)} onChange={(e) => setQuery({ from: localToIso((e.target as HTMLInputElement).value) })} />}
        </Field>
        <Field label="To" error={bad['query.to']}>
          {(id, d) => <input id={id} aria-describedby={d} aria-invalid={bad['query.to'] ? true : undefined} type="datetime-local" value={isoToLocal(filters.to || null)} onChange={(e) => setQuery({ to: localToIso((e.target as HTMLInputElement).value) })} />}
        </Field>
        <Field label="Insights" error={bad['query.has_insights']}>
          {(id) => (
            <select id={id} value={filters.has_insights} onChange={(e) => setQuery({ has_insights: (e.target as HTMLSelectElement).value })}>
              <option value="">any</option>
              <option value="true">with insights</option>
              <option value="false">without insights</option>
            </select>
          )}
        </Field>
      </form>
      <div data-testid="session-list" aria-busy={list.loading}>
        {list.loading && !list.data && <Loading what="sessions" />}
        <ErrorNote error={list.error} />
        {list.data?.length === 0 && (
          <Empty>
            {offset > 0 || FILTERS.some((f) => filters[f]) ? (
              <p>No sessions match these filters. Clear a filter or go back a page.</p>
            ) : (
              <p>
                No sessions yet. Make a <a href={`/p/${projectId}/test-call`}>test call</a> to one of your agents.
              </p>
            )}
          </Empty>
        )}
        {list.data && list.data.length > 0 && (
          <div class="table-wrap">
            <table>
              <caption class="sr-only">Sessions, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Started</th>
                  <th scope="col">Agent</th>
                  <th scope="col">Direction</th>
                  <th scope="col">Status</th>
                  <th scope="col">End reason</th>
                  <th scope="col">Seconds</th>
                  <th scope="col">Cost</th>
                </tr>
              </thead>
              <tbody>
                {list.data.map((s) => (
                  <tr key={s.id}>
                    <td>
                      <a href={`/p/${projectId}/sessions/${s.id}`}>{when(s.created_at)}</a>
                    </td>
                    <td>{agentName(s.agent_id)}</td>
                    <td>{s.direction}</td>
                    <td>
                      <Badge tone={tone(s.status)}>{s.status}</Badge>
                    </td>
                    <td>{s.end_reason ?? '—'}</td>
                    <td>{s.connected_seconds}</td>
                    <td>{usd(s.cost_nano_usd)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Pager offset={offset} limit={LIMIT} count={list.data?.length ?? 0} onChange={(o) => setQuery({ offset: o })} />
      </div>
    </main>
  );
}

function Timeline({ s }: { s: VoiceSession }) {
  const steps: [string, string | null][] = [
    ['Created', s.created_at],
    ['Started', s.started_at],
    ['Media connected', s.media_connected_at],
    ['Media disconnected', s.media_disconnected_at],
    ['Ended', s.ended_at],
  ];
  return (
    <ol class="timeline">
      {steps.map(([label, at]) => (
        <li key={label} class={at ? 'done' : 'pending'}>
          <span>{label}</span> <time>{at ? when(at) : 'not yet'}</time>
        </li>
      ))}
    </ol>
  );
}

function Transcript({ projectId, sessionId }: { projectId: string; sessionId: string }) {
  const t = useLoad(async () => {
    try {
      return await api<{ entries: TranscriptEntry[] }>('GET', projectPath(projectId, `/voice/sessions/${sessionId}/transcript`));
    } catch (err) {
      // 404 carries why there is none ("transcript not stored", "… removed by retention").
      if (err instanceof ApiError && err.status === 404) return { entries: [], none: err.message };
      throw err;
    }
  }, [projectId, sessionId]);
  if (t.loading) return <Loading what="the transcript" />;
  if (t.error) return <ErrorNote error={t.error} />;
  const data = t.data as { entries: TranscriptEntry[]; none?: string };
  if (data.none) return <p class="muted">{data.none}</p>;
  if (data.entries.length === 0) return <p class="muted">Nobody said anything on this call.</p>;
  return (
    <ol class="transcript" data-testid="transcript">
      {data.entries.map((e, i) => (
        <li key={i} class={`turn ${e.role}`}>
          <span class="who">{e.role}</span>
          <span class="what">{e.text}</span>
          {e.interrupted && <Badge tone="warn">interrupted</Badge>}
          <small class="muted">
            {(e.start_ms / 1000).toFixed(1)}s–{(e.end_ms / 1000).toFixed(1)}s
          </small>
        </li>
      ))}
    </ol>
  );
}

export function SessionPage({ projectId, sessionId }: { projectId: string; sessionId: string }) {
  const s = useLoad(() => api<VoiceSession>('GET', projectPath(projectId, `/voice/sessions/${sessionId}`)), [projectId, sessionId]);
  const deliveries = useLoad(() => api<WebhookDelivery[]>('GET', projectPath(projectId, `/webhooks/deliveries${qs({ session_id: sessionId, limit: 200 })}`)), [projectId, sessionId]);
  const v = s.data;
  return (
    <main>
      <p>
        <a href={`/p/${projectId}/sessions`}>← Sessions</a>
      </p>
      <h1>Session</h1>
      {s.loading && !v && <Loading what="the session" />}
      <ErrorNote error={s.error} />
      {v && (
        <>
          <dl class="facts">
            <dt>Id</dt>
            <dd>
              <code>{v.id}</code>
            </dd>
            <dt>Status</dt>
            <dd>
              <Badge tone={tone(v.status)}>{v.status}</Badge>
            </dd>
            <dt>End reason</dt>
            <dd>{v.end_reason ?? '—'}</dd>
            <dt>Direction</dt>
            <dd>{v.direction}</dd>
            <dt>Agent</dt>
            <dd>{v.agent_id ? <a href={`/p/${projectId}/agents/${v.agent_id}`}>version {v.agent_version}</a> : '—'}</dd>
            <dt>Connected</dt>
            <dd>{v.connected_seconds} s</dd>
            <dt>Cost</dt>
            <dd data-testid="cost">
              {usd(v.cost_nano_usd)} (rate {usd(v.rate_nano_usd_per_min)} a started minute; hold {usd(v.hold_nano_usd)})
            </dd>
            <dt>Recording</dt>
            <dd>
              {v.recording_ref ? (
                <>
                  {v.recording_ref.provider} {v.recording_ref.reference_id ?? '(reference pending)'} · {v.recording_ref.fetched_from}
                  {v.recording_ref.url && (
                    <>
                      {' '}
                      · <code>{v.recording_ref.url}</code>
                    </>
                  )}
                  {v.recording_ref.detail && <> · {v.recording_ref.detail}</>}
                </>
              ) : (
                'none (browser calls have no carrier recording)'
              )}
            </dd>
          </dl>
          <h2>Timeline</h2>
          <Timeline s={v} />
          <h2>Transcript</h2>
          <Transcript projectId={projectId} sessionId={v.id} />
          <h2>Insights</h2>
          {v.insights ? <pre class="json">{JSON.stringify(v.insights, null, 2)}</pre> : <p class="muted">No insights: the agent has no insight configuration, or the analysis has not finished.</p>}
          <h2>Webhook deliveries</h2>
          {deliveries.loading && <Loading what="deliveries" />}
          <ErrorNote error={deliveries.error} />
          {deliveries.data?.length === 0 && <p class="muted">This session caused no webhook deliveries (no endpoint subscribed and no agent webhook URL, or the call has not ended).</p>}
          {deliveries.data && deliveries.data.length > 0 && <DeliveriesTable deliveries={deliveries.data} />}
        </>
      )}
    </main>
  );
}

import { useState } from 'preact/hooks';
import { api, projectPath, qs } from '../api';
import type { Agent, Campaign, CampaignDetail, CampaignRow } from '../types';
import { Badge, ConfirmButton, ErrorNote, Field, Loading, Pager, useLoad, usePolling, when } from '../ui';
import { Counters, isLive, ProgressBar, rowTone, StatusBadge } from './campaign-progress';

// One campaign: its settings, counters, pause / resume / cancel (cancel asks first), and its
// rows a page at a time with every attempt's session. Followed every 2 s while it can change.

const LIMIT = 50;
const ROW_STATES = ['queued', 'in_progress', 'retrying', 'completed', 'failed', 'canceled'];
const DAY_NAMES: Record<string, string> = { mon: 'Mon', tue: 'Tue', wed: 'Wed', thu: 'Thu', fri: 'Fri', sat: 'Sat', sun: 'Sun' };

export function CampaignPage({ projectId, campaignId }: { projectId: string; campaignId: string }) {
  const [state, setState] = useState('');
  const [offset, setOffset] = useState(0);
  const detail = useLoad(() => api<CampaignDetail>('GET', projectPath(projectId, `/voice/campaigns/${campaignId}${qs({ state, limit: LIMIT, offset })}`)), [projectId, campaignId, state, offset]);
  const agent = useLoad(() => (detail.data ? api<Agent>('GET', projectPath(projectId, `/agents/${detail.data.agent_id}`)).catch(() => null) : Promise.resolve(null)), [projectId, detail.data?.agent_id]);
  const [controlError, setControlError] = useState<unknown>(null);
  const c = detail.data;
  usePolling(detail.reload, !!c && isLive(c));

  const control = async (action: 'pause' | 'resume' | 'cancel') => {
    setControlError(null);
    try {
      await api<Campaign>('POST', projectPath(projectId, `/voice/campaigns/${campaignId}/${action}`));
    } catch (err) {
      setControlError(err);
    }
    detail.reload();
  };

  if (!c) {
    return (
      <main>
        <h1>Campaign</h1>
        {detail.loading && <Loading what="the campaign" />}
        <ErrorNote error={detail.error} />
        <p>
          <a href={`/p/${projectId}/campaigns`}>All campaigns</a>
        </p>
      </main>
    );
  }
  const open = c.status === 'running' || c.status === 'paused';
  return (
    <main>
      <div class="title-row">
        <h1>{c.name}</h1>
        <StatusBadge status={c.status} />
      </div>
      <p>
        <a href={`/p/${projectId}/campaigns`}>All campaigns</a>
      </p>
      <ErrorNote error={detail.error} />
      {c.last_error && (
        <p class="notice" role="status" data-testid="last-error">
          Last problem dialling: {c.last_error}
        </p>
      )}
      <section aria-labelledby="progress-h">
        <h2 id="progress-h">Progress</h2>
        <ProgressBar campaign={c} />
        <Counters counters={c.counters} />
        {open && (
          <div class="row actions" role="group" aria-label="Campaign controls">
            {c.status === 'running' ? (
              <button type="button" onClick={() => void control('pause')}>
                Pause
              </button>
            ) : (
              <button type="button" class="primary" onClick={() => void control('resume')}>
                Resume
              </button>
            )}
            <ConfirmButton label="Cancel campaign" question="Cancel every row not yet dialled? Calls in progress go on." onConfirm={() => control('cancel')} />
          </div>
        )}
        {c.status === 'paused' && <p class="muted">Paused: no new calls start; calls in progress go on.</p>}
        {c.finished_at && <p class="muted">Finished {when(c.finished_at)}.</p>}
        <ErrorNote error={controlError} />
      </section>
      <section aria-labelledby="settings-h">
        <h2 id="settings-h">Settings</h2>
        <dl class="facts">
          <dt>Agent</dt>
          <dd>{agent.data ? <a href={`/p/${projectId}/agents/${c.agent_id}`}>{agent.data.name}</a> : <code>{c.agent_id}</code>}</dd>
          <dt>Calls from</dt>
          <dd>{c.from_numbers.join(', ')}</dd>
          <dt>Calls at once</dt>
          <dd>{c.max_concurrent_calls}</dd>
          <dt>Time zone</dt>
          <dd>{c.timezone}</dd>
          <dt>Calling windows</dt>
          <dd>{c.calling_windows.length ? c.calling_windows.map((w) => `${w.days.map((d) => DAY_NAMES[d] ?? d).join(' ')} ${w.start}–${w.end}`).join('; ') : 'any time'}</dd>
          <dt>Retries</dt>
          <dd>
            {c.retry.max_attempts} {c.retry.max_attempts === 1 ? 'attempt' : 'attempts'} per row, {c.retry.min_spacing_seconds} s apart, on {c.retry.on.map((o) => o.replace('_', ' ')).join(' and ') || 'nothing'}
          </dd>
          <dt>Started</dt>
          <dd>{when(c.created_at)}</dd>
        </dl>
      </section>
      <section aria-labelledby="rows-h">
        <h2 id="rows-h">Rows</h2>
        <div class="filters">
          <Field label="Row state">
            {(id) => (
              <select
                id={id}
                value={state}
                onChange={(e) => {
                  setState((e.target as HTMLSelectElement).value);
                  setOffset(0);
                }}
              >
                <option value="">Any</option>
                {ROW_STATES.map((s) => (
                  <option key={s} value={s}>
                    {s.replace('_', ' ')}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
        {c.rows.length === 0 ? <p class="muted">No rows {state ? `in state ${state.replace('_', ' ')}` : 'on this page'}.</p> : <RowsTable projectId={projectId} rows={c.rows} />}
        {(offset > 0 || c.rows.length === LIMIT) && <Pager offset={offset} limit={LIMIT} count={c.rows.length} onChange={setOffset} />}
      </section>
    </main>
  );
}

function RowsTable({ projectId, rows }: { projectId: string; rows: CampaignRow[] }) {
  return (
    <div class="table-wrap">
      <table data-testid="campaign-rows">
        <thead>
          <tr>
            <th scope="col">Row</th>
            <th scope="col">To</th>
            <th scope="col">State</th>
            <th scope="col">Attempts</th>
            <th scope="col">Next attempt</th>
            <th scope="col">Outcome</th>
            <th scope="col">Calls</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.index} data-row={r.index + 1}>
              <th scope="row">{r.index + 1}</th>
              <td>
                {r.to} <small class="muted">{r.timezone}</small>
              </td>
              <td>
                <Badge tone={rowTone(r.state)}>{r.state.replace('_', ' ')}</Badge>
              </td>
              <td>{r.attempts}</td>
              <td>{r.next_attempt_at ? when(r.next_attempt_at) : '—'}</td>
              <td>
                {r.outcome ?? '—'}
                {r.last_error && <small class="muted"> {r.last_error}</small>}
              </td>
              <td>
                {r.results.length === 0 ? (
                  '—'
                ) : (
                  <ul class="attempts">
                    {r.results.map((a) => (
                      <li key={a.attempt}>
                        <a href={`/p/${projectId}/sessions/${a.session_id}`} aria-label={`Session of row ${r.index + 1}, attempt ${a.attempt}`}>
                          #{a.attempt}
                        </a>{' '}
                        {a.end_reason ?? a.status} <small class="muted">from {a.from}</small>
                      </li>
                    ))}
                  </ul>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

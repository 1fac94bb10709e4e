import { useState } from 'preact/hooks';
import { api, projectPath, qs } from '../api';
import { bodySchema } from '../schema';
import type { Agent, Campaign, CarrierInfo, CarrierNumber } from '../types';
import { Empty, ErrorNote, Field, Loading, Pager, useLoad, usePolling, when } from '../ui';
import { CampaignForm } from './campaign-form';
import { countersLine, isLive, ProgressBar, StatusBadge } from './campaign-progress';

// Campaigns: one agent calls a list of numbers. The list follows running campaigns; the new
// campaign page checks first that there is an agent and a number to call from.

const CAMPAIGNS_BODY = '/console/v2/projects/{project_id}/voice/campaigns';
const LIMIT = 50;
const STATUSES = ['running', 'paused', 'completed', 'canceled'];

export function CampaignsPage({ projectId }: { projectId: string }) {
  const [status, setStatus] = useState('');
  const [offset, setOffset] = useState(0);
  const list = useLoad(() => api<Campaign[]>('GET', projectPath(projectId, `/voice/campaigns${qs({ status, limit: LIMIT, offset })}`)), [projectId, status, offset]);
  usePolling(list.reload, !!list.data?.some(isLive));
  const campaigns = list.data ?? [];
  return (
    <main>
      <div class="title-row">
        <h1>Campaigns</h1>
        <a class="button primary" href={`/p/${projectId}/campaigns/new`}>
          New campaign
        </a>
      </div>
      <p class="muted">A campaign has one agent call a list of numbers, inside calling windows, a few calls at a time, retrying busy and unanswered calls.</p>
      <div class="filters">
        <Field label="Status">
          {(id) => (
            <select
              id={id}
              value={status}
              onChange={(e) => {
                setStatus((e.target as HTMLSelectElement).value);
                setOffset(0);
              }}
            >
              <option value="">Any</option>
              {STATUSES.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          )}
        </Field>
      </div>
      {list.loading && !list.data && <Loading what="campaigns" />}
      <ErrorNote error={list.error} />
      {list.data?.length === 0 && offset === 0 && (
        <Empty>
          {status ? (
            <p>No {status} campaigns.</p>
          ) : (
            <p>
              No campaigns yet. <a href={`/p/${projectId}/campaigns/new`}>Start a campaign</a>: paste the numbers to call (CSV or JSON) and pick the agent and the numbers to call from. It needs an
              active agent and a number with outbound calls on (<a href={`/p/${projectId}/phone`}>Phone</a>).
            </p>
          )}
        </Empty>
      )}
      {campaigns.length > 0 && (
        <div class="table-wrap">
          <table data-testid="campaigns">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Progress</th>
                <th scope="col">Rows</th>
                <th scope="col">Started</th>
              </tr>
            </thead>
            <tbody>
              {campaigns.map((c) => (
                <tr key={c.id}>
                  <th scope="row">
                    <a href={`/p/${projectId}/campaigns/${c.id}`}>{c.name}</a>
                  </th>
                  <td>
                    <StatusBadge status={c.status} />
                  </td>
                  <td>
                    <ProgressBar campaign={c} />
                  </td>
                  <td>{countersLine(c.counters)}</td>
                  <td>{when(c.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {(offset > 0 || campaigns.length === LIMIT) && <Pager offset={offset} limit={LIMIT} count={campaigns.length} onChange={setOffset} />}
    </main>
  );
}

/** Active agents and the numbers with outbound calls on, across the project's carriers. */
async function formInputs(projectId: string) {
  const [schema, agents, carriers] = await Promise.all([
    bodySchema(CAMPAIGNS_BODY, 'post'),
    api<Agent[]>('GET', projectPath(projectId, '/agents?limit=200')),
    api<CarrierInfo[]>('GET', projectPath(projectId, '/carriers?limit=100')),
  ]);
  const numbers = (await Promise.all(carriers.map((c) => api<CarrierNumber[]>('GET', projectPath(projectId, `/carriers/${c.id}/numbers?limit=200`))))).flat().filter((n) => n.outbound_enabled);
  numbers.sort((x, y) => x.e164.localeCompare(y.e164));
  return { schema, agents: agents.filter((a) => a.is_active), numbers };
}

export function NewCampaignPage({ projectId }: { projectId: string }) {
  const inputs = useLoad(() => formInputs(projectId), [projectId]);
  const d = inputs.data;
  return (
    <main>
      <h1>New campaign</h1>
      <p>
        <a href={`/p/${projectId}/campaigns`}>All campaigns</a>
      </p>
      {inputs.loading && !d && <Loading what="the campaign form" />}
      <ErrorNote error={inputs.error} />
      {d && (d.agents.length === 0 || d.numbers.length === 0) && (
        <Empty>
          <p>A campaign needs:</p>
          <ul>
            {d.agents.length === 0 && (
              <li>
                an active agent: <a href={`/p/${projectId}/agents/new`}>create one</a>;
              </li>
            )}
            {d.numbers.length === 0 && (
              <li>
                a number with outbound calls on, on a verified carrier: add one on <a href={`/p/${projectId}/phone`}>Phone</a>.
              </li>
            )}
          </ul>
        </Empty>
      )}
      {d && d.agents.length > 0 && d.numbers.length > 0 && <CampaignForm projectId={projectId} {...d} />}
    </main>
  );
}

import { useState } from 'preact/hooks';
import { api, projectPath } from '../api';
import { navigate } from '../router';
import { bodySchema } from '../schema';
import type { Agent, CatalogueEntry, ProviderAccount } from '../types';
import { Badge, ConfirmButton, Empty, ErrorNote, Loading, SecretOnce, useLoad, when } from '../ui';
import { AgentForm } from './agent-form';
import { VersionDiff } from './agent-versions';

const AGENTS_BODY = '/console/v2/projects/{project_id}/agents';

export function AgentsPage({ projectId }: { projectId: string }) {
  const list = useLoad(() => api<Agent[]>('GET', projectPath(projectId, '/agents?include_inactive=true&limit=200')), [projectId]);
  return (
    <main>
      <div class="title-row">
        <h1>Agents</h1>
        <a class="button primary" href={`/p/${projectId}/agents/new`}>
          New agent
        </a>
      </div>
      {list.loading && !list.data && <Loading what="agents" />}
      <ErrorNote error={list.error} />
      {list.data?.length === 0 && (
        <Empty>
          <p>No agents yet. Add a verified provider account first, then create an agent and try it with a test call.</p>
          <p>
            <a href={`/p/${projectId}/providers`}>Provider accounts</a> · <a href={`/p/${projectId}/agents/new`}>Create an agent</a>
          </p>
        </Empty>
      )}
      {list.data && list.data.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="sr-only">Agents, active and inactive</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">State</th>
                <th scope="col">Mode</th>
                <th scope="col">Version</th>
                <th scope="col">Changed</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((a) => (
                <tr key={a.id}>
                  <td>
                    <a href={`/p/${projectId}/agents/${a.id}`}>{a.name}</a>
                  </td>
                  <td>{a.is_active ? <Badge tone="good">active</Badge> : <Badge>inactive</Badge>}</td>
                  <td>{a.pipeline_mode}</td>
                  <td>{a.version}</td>
                  <td>{when(a.updated_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </main>
  );
}

/** What the agent form needs besides the agent: its schema, the accounts and the catalogue. */
function useFormInputs(projectId: string) {
  return useLoad(
    async () => {
      const [schema, accounts, catalogue] = await Promise.all([
        bodySchema(AGENTS_BODY, 'post'),
        api<ProviderAccount[]>('GET', projectPath(projectId, '/provider-accounts?limit=200')),
        api<CatalogueEntry[]>('GET', '/console/v2/providers/catalogue'),
      ]);
      return { schema, accounts, catalogue };
    },
    [projectId],
  );
}

export function NewAgentPage({ projectId }: { projectId: string }) {
  const inputs = useFormInputs(projectId);
  const [created, setCreated] = useState<{ agent: Agent; webhook_secret?: string } | null>(null);
  return (
    <main>
      <h1>New agent</h1>
      {created ? (
        <>
          <p role="status">
            Agent <strong>{created.agent.name}</strong> created.
          </p>
          {created.webhook_secret && <SecretOnce label="Webhook signing secret" value={created.webhook_secret} />}
          <p>
            <a href={`/p/${projectId}/agents/${created.agent.id}`}>Open the agent</a> · <a href={`/p/${projectId}/test-call?agent=${created.agent.id}`}>Test call</a>
          </p>
        </>
      ) : (
        <>
          {inputs.loading && <Loading what="the agent form" />}
          <ErrorNote error={inputs.error} />
          {inputs.data && <AgentForm projectId={projectId} {...inputs.data} onSaved={setCreated} />}
        </>
      )}
    </main>
  );
}

export function AgentPage({ projectId, agentId }: { projectId: string; agentId: string }) {
  const inputs = useFormInputs(projectId);
  const agent = useLoad(() => api<Agent>('GET', projectPath(projectId, `/agents/${agentId}`)), [projectId, agentId]);
  const [secret, setSecret] = useState<string | null>(null);
  const [actionError, setActionError] = useState<unknown>(null);
  const [saved, setSaved] = useState<number | null>(null);
  const a = agent.data;
  const act = async (fn: () => Promise<void>) => {
    setActionError(null);
    try {
      await fn();
    } catch (err) {
      setActionError(err);
    }
  };
  return (
    <main>
      <p>
        <a href={`/p/${projectId}/agents`}>← Agents</a>
      </p>
      {agent.loading && !a && <Loading what="the agent" />}
      <ErrorNote error={agent.error} />
      {a && (
        <>
          <div class="title-row">
            <h1>{a.name}</h1>
            {a.is_active ? <Badge tone="good">active</Badge> : <Badge>inactive</Badge>}
            <span class="muted">version {a.version}</span>
          </div>
          <div class="row actions">
            <a class="button" href={`/p/${projectId}/test-call?agent=${a.id}`}>
              Test call
            </a>
            <a class="button" href={`/p/${projectId}/sessions?agent_id=${a.id}`}>
              Sessions
            </a>
            {a.is_active ? (
              <ConfirmButton
                label="Deactivate"
                question="Deactivate this agent? Numbers bound to it stop answering."
                onConfirm={() => act(async () => {
                  await api('DELETE', projectPath(projectId, `/agents/${a.id}`));
                  agent.reload();
                })}
              />
            ) : (
              <button type="button" onClick={() => void act(async () => {
                await api('PATCH', projectPath(projectId, `/agents/${a.id}`), { is_active: true });
                agent.reload();
              })}>
                Activate
              </button>
            )}
            <ConfirmButton
              label="Rotate webhook secret"
              question="Replace the webhook secret? Receivers must switch to the new one."
              onConfirm={() => act(async () => {
                const r = await api<{ webhook_secret: string }>('POST', projectPath(projectId, `/agents/${a.id}/rotate-secret`));
                setSecret(r.webhook_secret);
              })}
            />
          </div>
          <ErrorNote error={actionError} />
          {secret && <SecretOnce label="New webhook signing secret" value={secret} onDone={() => setSecret(null)} />}
          {saved !== null && <p role="status">Saved as version {saved}.</p>}
          <h2>Settings</h2>
          <ErrorNote error={inputs.error} />
          {inputs.data && (
            <AgentForm
              key={a.version}
              projectId={projectId}
              {...inputs.data}
              agent={a}
              onSaved={(r) => {
                setSaved(r.agent.version);
                agent.reload();
              }}
            />
          )}
          <h2>Versions</h2>
          <VersionDiff key={a.version} projectId={projectId} agentId={a.id} latest={a.version} />
        </>
      )}
    </main>
  );
}

export function goToAgent(projectId: string, id: string) {
  navigate(`/p/${projectId}/agents/${id}`);
}

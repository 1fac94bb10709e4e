import { useState } from 'preact/hooks';
import { api, projectPath } from '../api';
import type { Agent } from '../types';
import { ConfirmButton, Empty, ErrorNote, Loading, SecretOnce, TextField, useLoad, useSubmit, when } from '../ui';

// API keys (machine door, scoped) and publishable keys (browser calls from listed origins).

const SCOPES = ['voice:read', 'voice:write', 'webhook:read', 'webhook:write'];

interface ApiKey {
  id: string;
  name: string;
  scopes: string[];
  prefix: string;
  created_at: string;
}
interface PublishableKey {
  id: string;
  name: string;
  origins: string[];
  agent_ids: string[] | null;
  created_at: string;
  max_concurrent_sessions?: number;
}

function ApiKeys({ projectId }: { projectId: string }) {
  const list = useLoad(() => api<ApiKey[]>('GET', projectPath(projectId, '/api-keys?limit=200')), [projectId]);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>(['voice:read', 'voice:write']);
  const [shown, setShown] = useState<string | null>(null);
  const [rowError, setRowError] = useState<unknown>(null);
  const create = useSubmit();
  return (
    <section aria-labelledby="api-keys">
      <h2 id="api-keys">API keys</h2>
      <ErrorNote error={list.error} />
      <ErrorNote error={rowError} />
      {shown && <SecretOnce label="New API key" value={shown} onDone={() => setShown(null)} />}
      {list.loading && !list.data && <Loading what="API keys" />}
      {list.data?.length === 0 && (
        <Empty>
          <p>No API keys. Create one below for your server to call the machine door (<code>/v2</code>).</p>
        </Empty>
      )}
      {list.data && list.data.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((k) => (
                <tr key={k.id}>
                  <td>{k.name}</td>
                  <td>
                    <code>{k.prefix}…</code>
                  </td>
                  <td>{k.scopes.join(', ')}</td>
                  <td>{when(k.created_at)}</td>
                  <td>
                    <ConfirmButton
                      label="Revoke"
                      question={`Revoke ${k.name}? Requests with it fail at once.`}
                      onConfirm={async () => {
                        setRowError(null);
                        try {
                          await api('DELETE', projectPath(projectId, `/api-keys/${k.id}`));
                          list.reload();
                        } catch (err) {
                          setRowError(err);
                        }
                      }}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void create.run(async () => {
            const k = await api<{ key: string }>('POST', projectPath(projectId, '/api-keys'), { name, scopes });
            setShown(k.key);
            setName('');
            list.reload();
          });
        }}
      >
        <TextField label="Key name" name="name" value={name} onInput={setName} error={create.fields.name} required />
        <fieldset>
          <legend>Scopes</legend>
          {SCOPES.map((s) => (
            <label class="check" key={s}>
              <input type="checkbox" checked={scopes.includes(s)} onChange={(e) => setScopes((e.target as HTMLInputElement).checked ? [...scopes, s] : scopes.filter((x) => x !== s))} /> {s}
            </label>
          ))}
          {create.fields.scopes && <small class="field-error" role="alert">{create.fields.scopes}</small>}
        </fieldset>
        <ErrorNote error={create.error} />
        <button type="submit" class="primary" disabled={create.busy}>
          Create API key
        </button>
      </form>
    </section>
  );
}

function PublishableKeys({ projectId }: { projectId: string }) {
  const list = useLoad(() => api<PublishableKey[]>('GET', projectPath(projectId, '/publishable-keys?limit=200')), [projectId]);
  const agents = useLoad(() => api<Agent[]>('GET', projectPath(projectId, '/agents?limit=200')), [projectId]);
  const [name, setName] = useState('');
  const [origins, setOrigins] = useState('');
  const [allAgents, setAllAgents] = useState(true);
  const [picked, setPicked] = useState<string[]>([]);
  const [shown, setShown] = useState<string | null>(null);
  const [rowError, setRowError] = useState<unknown>(null);
  const create = useSubmit();
  const agentName = (id: string) => agents.data?.find((a) => a.id === id)?.name ?? id.slice(0, 8);
  const row = async (fn: () => Promise<void>) => {
    setRowError(null);
    try {
      await fn();
      list.reload();
    } catch (err) {
      setRowError(err);
    }
  };
  return (
    <section aria-labelledby="pk-keys">
      <h2 id="pk-keys">Publishable keys</h2>
      <p class="muted">For web pages: a browser starts a call with it, only from the listed origins and only to the allowed agents.</p>
      <ErrorNote error={list.error} />
      <ErrorNote error={rowError} />
      {shown && <SecretOnce label="New publishable key" value={shown} onDone={() => setShown(null)} />}
      {list.data?.length === 0 && (
        <Empty>
          <p>No publishable keys. Create one to put a call button on your website.</p>
        </Empty>
      )}
      {list.data && list.data.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Origins</th>
                <th scope="col">Agents</th>
                <th scope="col">Created</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((k) => (
                <tr key={k.id}>
                  <td>{k.name}</td>
                  <td class="wrap">{k.origins.join(', ')}</td>
                  <td>{k.agent_ids ? k.agent_ids.map(agentName).join(', ') : 'all agents'}</td>
                  <td>{when(k.created_at)}</td>
                  <td class="row">
                    <ConfirmButton label="Rotate" question={`Rotate ${k.name}? The old key stops working.`} onConfirm={() => row(async () => setShown((await api<{ key: string }>('POST', projectPath(projectId, `/publishable-keys/${k.id}/rotate`))).key))} />
                    <ConfirmButton label="Revoke" question={`Revoke ${k.name}?`} onConfirm={() => row(() => api('DELETE', projectPath(projectId, `/publishable-keys/${k.id}`)))} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void create.run(async () => {
            const body = { name, origins: origins.split(/[\s,]+/).filter(Boolean), agent_ids: allAgents ? null : picked };
            const k = await api<{ key: string }>('POST', projectPath(projectId, '/publishable-keys'), body);
            setShown(k.key);
            setName('');
            setOrigins('');
            list.reload();
          });
        }}
      >
        <TextField label="Key name" name="pk-name" value={name} onInput={setName} error={create.fields.name} required />
        <TextField label="Allowed origins" name="origins" hint="Exact origins, separated by spaces: https://www.example.com" value={origins} onInput={setOrigins} error={create.fields.origins ?? Object.entries(create.fields).find(([k]) => k.startsWith('origins.'))?.[1]} />
        <fieldset>
          <legend>Agents this key may call</legend>
          <label class="check">
            <input type="checkbox" checked={allAgents} onChange={(e) => setAllAgents((e.target as HTMLInputElement).checked)} /> all agents
          </label>
          {!allAgents &&
            agents.data?.map((a) => (
              <label class="check" key={a.id}>
                <input type="checkbox" checked={picked.includes(a.id)} onChange={(e) => setPicked((e.target as HTMLInputElement).checked ? [...picked, a.id] : picked.filter((x) => x !== a.id))} /> {a.name}
              </label>
            ))}
        </fieldset>
        <ErrorNote error={create.error} />
        <button type="submit" class="primary" disabled={create.busy}>
          Create publishable key
        </button>
      </form>
    </section>
  );
}

export function KeysPage({ projectId }: { projectId: string }) {
  return (
    <main>
      <h1>Keys</h1>
      <ApiKeys projectId={projectId} />
      <PublishableKeys projectId={projectId} />
    </main>
  );
}


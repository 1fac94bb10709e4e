import { useState } from 'preact/hooks';
import { api, projectPath } from '../api';
import type { CatalogueEntry, ProviderAccount } from '../types';
import { Badge, ConfirmButton, Empty, ErrorNote, Field, Loading, TextField, useLoad, useSubmit, when } from '../ui';

// Provider accounts (bring your own key): credentials go in once and are never shown again.

export function ProvidersPage({ projectId }: { projectId: string }) {
  const list = useLoad(() => api<ProviderAccount[]>('GET', projectPath(projectId, '/provider-accounts?limit=200')), [projectId]);
  const catalogue = useLoad(() => api<CatalogueEntry[]>('GET', '/console/v2/providers/catalogue'), []);
  const [provider, setProvider] = useState('local');
  const [label, setLabel] = useState('');
  const [key, setKey] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const create = useSubmit();
  const [rowError, setRowError] = useState<unknown>(null);
  const row = async (fn: () => Promise<unknown>) => {
    setRowError(null);
    try {
      await fn();
      list.reload();
    } catch (err) {
      setRowError(err);
    }
  };
  return (
    <main>
      <h1>Provider accounts</h1>
      {list.loading && !list.data && <Loading what="provider accounts" />}
      <ErrorNote error={list.error} />
      <ErrorNote error={rowError} />
      {list.data?.length === 0 && (
        <Empty>
          <p>No provider accounts yet. Add one below — the <code>local</code> provider runs on this machine and needs no key — then verify it.</p>
        </Empty>
      )}
      {list.data && list.data.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Label</th>
                <th scope="col">Provider</th>
                <th scope="col">Status</th>
                <th scope="col">Key</th>
                <th scope="col">Revision</th>
                <th scope="col">Added</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((a) => (
                <tr key={a.id}>
                  <td>{a.label}</td>
                  <td>{a.provider}</td>
                  <td>
                    <Badge tone={a.status === 'verified' ? 'good' : a.status === 'invalid' ? 'bad' : 'warn'}>{a.status}</Badge>
                    {a.status_detail && <small class="muted"> {a.status_detail}</small>}
                  </td>
                  <td>{a.key_hint ? `…${a.key_hint}` : '—'}</td>
                  <td>{a.revision}</td>
                  <td>{when(a.created_at)}</td>
                  <td class="row">
                    <button type="button" onClick={() => void row(() => api('POST', projectPath(projectId, `/provider-accounts/${a.id}/verify`)))}>
                      Verify {a.label}
                    </button>
                    <ConfirmButton label="Delete" question={`Delete ${a.label}?`} onConfirm={() => row(() => api('DELETE', projectPath(projectId, `/provider-accounts/${a.id}`)))} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2>Add a provider account</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void create.run(async () => {
            const body: Record<string, unknown> = { provider, label };
            if (key) body.credentials = { api_key: key };
            if (baseUrl) body.base_url = baseUrl;
            await api('POST', projectPath(projectId, '/provider-accounts'), body);
            setLabel('');
            setKey('');
            setBaseUrl('');
            list.reload();
          });
        }}
      >
        <Field label="Provider" error={create.fields.provider}>
          {(id, d) => (
            <select id={id} aria-describedby={d} value={provider} onChange={(e) => setProvider((e.target as HTMLSelectElement).value)}>
              {(catalogue.data ?? [{ provider: 'local', stages: {} }]).map((c) => (
                <option key={c.provider}>{c.provider}</option>
              ))}
            </select>
          )}
        </Field>
        <TextField label="Label" name="label" value={label} onInput={setLabel} error={create.fields.label} required />
        {provider !== 'local' && (
          <TextField label="API key" name="api_key" type="password" autoComplete="off" hint="Stored encrypted; never shown again." value={key} onInput={setKey} error={create.fields['credentials.api_key'] ?? create.fields.credentials} />
        )}
        <TextField label="Base URL (optional)" name="base_url" hint="A compatible server, e.g. a self-hosted OpenAI-compatible endpoint." value={baseUrl} onInput={setBaseUrl} error={create.fields.base_url} />
        <ErrorNote error={create.error} />
        <button type="submit" class="primary" disabled={create.busy}>
          Add account
        </button>
      </form>
      <h2>Catalogue</h2>
      <ErrorNote error={catalogue.error} />
      {catalogue.data && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Provider</th>
                <th scope="col">Speech to text</th>
                <th scope="col">Language model</th>
                <th scope="col">Text to speech</th>
                <th scope="col">Realtime</th>
              </tr>
            </thead>
            <tbody>
              {catalogue.data.map((c) => (
                <tr key={c.provider}>
                  <th scope="row">{c.provider}</th>
                  {(['stt', 'llm', 'tts', 'realtime'] as const).map((s) => (
                    <td key={s}>{c.stages[s]?.join(', ') ?? '—'}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </main>
  );
}

import { useState } from 'preact/hooks';
import { api, projectPath } from '../api';
import type { Agent, CarrierInfo } from '../types';
import { Badge, ConfirmButton, Empty, ErrorNote, Loading, TextField, useLoad, useSubmit, when } from '../ui';
import { CarrierNumbers } from './phone-numbers';
import { OutboundCall } from './phone-outbound';

// Phone: the project's own carrier connections (Twilio here; the auth token goes in once and is
// never shown again), their numbers, and an outbound call from one of them.

const tone = (s: CarrierInfo['status']) => (s === 'verified' ? 'good' : s === 'invalid' ? 'bad' : 'warn');

function AddTwilio({ projectId, onAdded }: { projectId: string; onAdded: () => void }) {
  const [label, setLabel] = useState('');
  const [sid, setSid] = useState('');
  const [token, setToken] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const add = useSubmit();
  return (
    <form
      aria-label="Add a Twilio account"
      onSubmit={(e) => {
        e.preventDefault();
        void add.run(async () => {
          const body: Record<string, unknown> = { kind: 'twilio', label, credentials: { account_sid: sid.trim(), auth_token: token } };
          if (baseUrl) body.base_url = baseUrl;
          await api('POST', projectPath(projectId, '/carriers'), body);
          setLabel('');
          setSid('');
          setToken('');
          setBaseUrl('');
          onAdded();
        });
      }}
    >
      <h3>Add a Twilio account</h3>
      <TextField label="Carrier label" name="carrier-label" value={label} onInput={setLabel} error={add.fields.label} required />
      <TextField label="Account SID" name="account_sid" placeholder="AC…" value={sid} onInput={setSid} error={add.fields['credentials.account_sid'] ?? add.fields.credentials} required />
      <TextField label="Auth token" name="auth_token" type="password" autoComplete="off" hint="Stored encrypted; never shown again." value={token} onInput={setToken} error={add.fields['credentials.auth_token']} required />
      <TextField label="API base URL (optional)" name="carrier-base-url" hint="Leave empty for Twilio itself; set it for a Twilio-compatible test server." value={baseUrl} onInput={setBaseUrl} error={add.fields.base_url} />
      <ErrorNote error={add.error} />
      <button type="submit" class="primary" disabled={add.busy}>
        Add carrier
      </button>
    </form>
  );
}

export function PhonePage({ projectId }: { projectId: string }) {
  const carriers = useLoad(() => api<CarrierInfo[]>('GET', projectPath(projectId, '/carriers?limit=100')), [projectId]);
  const agents = useLoad(() => api<Agent[]>('GET', projectPath(projectId, '/agents?include_inactive=true&limit=200')), [projectId]);
  const [rowError, setRowError] = useState<unknown>(null);
  // Bumped when a number changes, so the outbound form's list of `from` numbers follows.
  const [numbersTick, setNumbersTick] = useState(0);
  const row = async (fn: () => Promise<unknown>) => {
    setRowError(null);
    try {
      await fn();
    } catch (err) {
      setRowError(err);
    }
    carriers.reload();
  };
  const list = carriers.data ?? [];
  return (
    <main>
      <h1>Phone</h1>
      <section aria-labelledby="carriers-h">
        <h2 id="carriers-h">Carriers</h2>
        <p class="muted">Calls go through your own carrier account: its numbers, fees and consent rules stay yours.</p>
        {carriers.loading && !carriers.data && <Loading what="carriers" />}
        <ErrorNote error={carriers.error} />
        <ErrorNote error={rowError} />
        {carriers.data?.length === 0 && (
          <Empty>
            <p>No carriers yet. Add your Twilio account below, verify it, then add its numbers.</p>
          </Empty>
        )}
        {list.length > 0 && (
          <div class="table-wrap">
            <table data-testid="carriers">
              <thead>
                <tr>
                  <th scope="col">Label</th>
                  <th scope="col">Carrier</th>
                  <th scope="col">Account</th>
                  <th scope="col">Status</th>
                  <th scope="col">Revision</th>
                  <th scope="col">Added</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {list.map((c) => (
                  <tr key={c.id}>
                    <td>{c.label}</td>
                    <td>{c.kind}</td>
                    <td>
                      {c.account_sid && <code>{c.account_sid}</code>} <small class="muted">token …{c.token_hint}</small>
                    </td>
                    <td>
                      <Badge tone={tone(c.status)}>{c.status}</Badge>
                      {c.status_detail && <small class="muted"> {c.status_detail}</small>}
                    </td>
                    <td>{c.revision}</td>
                    <td>{when(c.created_at)}</td>
                    <td class="row">
                      <button type="button" onClick={() => void row(() => api('POST', projectPath(projectId, `/carriers/${c.id}/verify`)))}>
                        Verify {c.label}
                      </button>
                      <ConfirmButton label="Delete" question={`Delete ${c.label}? Remove its numbers first.`} onConfirm={() => row(() => api('DELETE', projectPath(projectId, `/carriers/${c.id}`)))} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <AddTwilio projectId={projectId} onAdded={carriers.reload} />
      </section>
      {list.map((c) => (
        <CarrierNumbers key={c.id} projectId={projectId} carrier={c} agents={agents.data ?? []} onChange={() => setNumbersTick((n) => n + 1)} />
      ))}
      <OutboundCall projectId={projectId} carriers={list} agents={agents.data ?? []} tick={numbersTick} />
    </main>
  );
}

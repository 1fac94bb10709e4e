import { useEffect, useState } from 'preact/hooks';
import { api, projectPath } from '../api';
import type { Agent, CarrierInfo, CarrierNumber } from '../types';
import { Badge, ConfirmButton, Empty, ErrorNote, Field, TextField, useLoad, useSubmit } from '../ui';

// The numbers of one carrier: add one, bind it to an agent (it then answers inbound calls with
// that agent; the service sets the voice URL at the carrier), outbound calls on or off, and the
// voice URL to set by hand when the service could not.

function AgentSelect({ id, agents, value, describedBy, onChange }: { id: string; agents: Agent[]; value: string; describedBy?: string; onChange: (v: string) => void }) {
  return (
    <select id={id} aria-describedby={describedBy} value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value)}>
      <option value="">none (no inbound calls)</option>
      {agents.map((a) => (
        <option key={a.id} value={a.id}>
          {a.name}
          {a.is_active ? '' : ' (inactive)'}
        </option>
      ))}
    </select>
  );
}

function CarrierState({ n }: { n: CarrierNumber }) {
  if (n.carrier_configured === undefined) return null;
  if (n.carrier_error) return <Badge tone="bad">carrier not updated</Badge>;
  if (n.agent_id === null) return <Badge>not routed here</Badge>;
  return n.carrier_configured ? <Badge tone="good">set at the carrier</Badge> : <Badge tone="warn">not set at the carrier</Badge>;
}

export function CarrierNumbers({ projectId, carrier, agents, onChange }: { projectId: string; carrier: CarrierInfo; agents: Agent[]; onChange: () => void }) {
  const base = `/carriers/${carrier.id}/numbers`;
  const list = useLoad(() => api<CarrierNumber[]>('GET', projectPath(projectId, `${base}?limit=200`)), [projectId, carrier.id]);
  const [e164, setE164] = useState('');
  const [outbound, setOutbound] = useState(true);
  const [agentId, setAgentId] = useState('');
  const [rowError, setRowError] = useState<unknown>(null);
  const add = useSubmit();
  const row = async (fn: () => Promise<unknown>) => {
    setRowError(null);
    try {
      await fn();
    } catch (err) {
      setRowError(err);
    }
    list.reload();
    onChange();
  };
  const patch = (n: CarrierNumber, body: Record<string, unknown>) => row(() => api('PATCH', projectPath(projectId, `${base}/${n.id}`), body));
  // The outbound switch shows a click at once (a controlled checkbox snapped back until the list
  // reloaded); the list's next load, the server's word, replaces it, so a refused change reverts.
  const [outboundShown, setOutboundShown] = useState<Record<string, boolean>>({});
  useEffect(() => setOutboundShown({}), [list.data]);
  const setOutboundOf = (n: CarrierNumber, on: boolean) => {
    setOutboundShown((o) => ({ ...o, [n.id]: on }));
    void patch(n, { outbound_enabled: on });
  };
  const headingId = `numbers-${carrier.id}`;
  return (
    <section aria-labelledby={headingId}>
      <h2 id={headingId}>Numbers on {carrier.label}</h2>
      <ErrorNote error={list.error} />
      <ErrorNote error={rowError} />
      {list.data?.length === 0 && (
        <Empty>
          <p>No numbers on {carrier.label}. Add one of the account's numbers below; bind it to an agent to answer calls, or enable outbound to call from it.</p>
        </Empty>
      )}
      {list.data && list.data.length > 0 && (
        <div class="table-wrap">
          <table data-testid={`numbers-${carrier.label}`}>
            <thead>
              <tr>
                <th scope="col">Number</th>
                <th scope="col">Inbound agent</th>
                <th scope="col">Outbound</th>
                <th scope="col">Voice URL</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((n) => (
                <tr key={n.id}>
                  <th scope="row">{n.e164}</th>
                  <td>
                    <label class="sr-only" for={`agent-${n.id}`}>
                      Inbound agent for {n.e164}
                    </label>
                    <AgentSelect id={`agent-${n.id}`} agents={agents} value={n.agent_id ?? ''} onChange={(v) => void patch(n, { agent_id: v || null })} />
                  </td>
                  <td>
                    <label class="check">
                      <input type="checkbox" checked={outboundShown[n.id] ?? n.outbound_enabled} onChange={(e) => setOutboundOf(n, (e.target as HTMLInputElement).checked)} />
                      <span class="sr-only">Outbound calls from {n.e164}</span> {(outboundShown[n.id] ?? n.outbound_enabled) ? 'on' : 'off'}
                    </label>
                  </td>
                  <td class="wrap">
                    {n.voice_url && <code data-testid="voice-url">{n.voice_url}</code>} <CarrierState n={n} />
                    {n.carrier_error && <small class="field-error"> {n.carrier_error}</small>}
                    {n.voice_url && n.agent_id && !n.carrier_configured && <small class="muted"> Set it as the number's voice webhook (HTTP POST) in the carrier's console, or press Sync.</small>}
                  </td>
                  <td class="row">
                    {n.voice_url !== undefined && (
                      <button type="button" aria-label={`Sync ${n.e164} at the carrier`} onClick={() => void row(() => api('POST', projectPath(projectId, `${base}/${n.id}/sync`)))}>
                        Sync
                      </button>
                    )}
                    <ConfirmButton label="Remove" question={`Remove ${n.e164}? Its previous settings are put back at the carrier.`} onConfirm={() => row(() => api('DELETE', projectPath(projectId, `${base}/${n.id}`)))} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <form
        aria-label={`Add a number to ${carrier.label}`}
        onSubmit={(e) => {
          e.preventDefault();
          void add.run(async () => {
            await api('POST', projectPath(projectId, base), { e164: e164.trim(), outbound_enabled: outbound, agent_id: agentId || null });
            setE164('');
            setAgentId('');
            list.reload();
            onChange();
          });
        }}
      >
        <h3>Add a number to {carrier.label}</h3>
        <TextField label="Phone number" name="e164" type="tel" placeholder="+14155550100" hint="E.164: a plus, the country code and the number." value={e164} onInput={setE164} error={add.fields.e164} required />
        <Field label="Answer inbound calls with" error={add.fields.agent_id}>
          {(id, d) => <AgentSelect id={id} describedBy={d} agents={agents} value={agentId} onChange={setAgentId} />}
        </Field>
        <div class="field check">
          <label class="check">
            <input type="checkbox" checked={outbound} onChange={(e) => setOutbound((e.target as HTMLInputElement).checked)} /> Allow outbound calls from this number
          </label>
        </div>
        <ErrorNote error={add.error} />
        <button type="submit" class="primary" disabled={add.busy}>
          Add number
        </button>
      </form>
    </section>
  );
}

import { useState } from 'preact/hooks';
import { api, projectPath } from '../api';
import type { Agent, CarrierInfo, CarrierNumber, VoiceSession } from '../types';
import { Empty, ErrorNote, Field, TextField, useLoad, useSubmit } from '../ui';

// One outbound call: an agent calls `to` from one of the project's numbers with outbound on.
// The 202 means queued, not answered: the session page follows the call from there.

export function OutboundCall({ projectId, carriers, agents, tick }: { projectId: string; carriers: CarrierInfo[]; agents: Agent[]; tick: number }) {
  const ids = carriers.map((c) => c.id).join(',');
  const numbers = useLoad(
    async () => (await Promise.all(carriers.map((c) => api<CarrierNumber[]>('GET', projectPath(projectId, `/carriers/${c.id}/numbers?limit=200`))))).flat().filter((n) => n.outbound_enabled),
    [projectId, ids, tick],
  );
  const active = agents.filter((a) => a.is_active);
  const [agentId, setAgentId] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [started, setStarted] = useState<VoiceSession | null>(null);
  const call = useSubmit();
  const fromValue = from || numbers.data?.[0]?.e164 || '';
  const agentValue = agentId || active[0]?.id || '';
  return (
    <section aria-labelledby="outbound-h">
      <h2 id="outbound-h">Start an outbound call</h2>
      <ErrorNote error={numbers.error} />
      {numbers.data?.length === 0 || active.length === 0 ? (
        <Empty>
          <p>To call out you need an active agent and a number with outbound calls allowed on a verified carrier.</p>
        </Empty>
      ) : (
        <form
          aria-label="Start an outbound call"
          onSubmit={(e) => {
            e.preventDefault();
            setStarted(null);
            void call.run(async () => {
              const r = await api<{ session: VoiceSession }>('POST', projectPath(projectId, '/voice/sessions/outbound'), { agent_id: agentValue, from: fromValue, to: to.trim() });
              setStarted(r.session);
            });
          }}
        >
          <Field label="Agent" error={call.fields.agent_id}>
            {(id, d) => (
              <select id={id} aria-describedby={d} value={agentValue} onChange={(e) => setAgentId((e.target as HTMLSelectElement).value)}>
                {active.map((a) => (
                  <option key={a.id} value={a.id}>
                    {a.name}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="From" error={call.fields.from}>
            {(id, d) => (
              <select id={id} aria-describedby={d} aria-invalid={call.fields.from ? true : undefined} value={fromValue} onChange={(e) => setFrom((e.target as HTMLSelectElement).value)}>
                {numbers.data?.map((n) => (
                  <option key={n.id}>{n.e164}</option>
                ))}
              </select>
            )}
          </Field>
          <TextField label="To" name="to" type="tel" placeholder="+14155550123" hint="E.164. You are responsible for consent to call this number." value={to} onInput={setTo} error={call.fields.to} required />
          <ErrorNote error={call.error} />
          <button type="submit" class="primary" disabled={call.busy}>
            Call
          </button>
        </form>
      )}
      {started && (
        <p class="notice" role="status" data-testid="outbound-started">
          Call queued ({started.status}). <a href={`/p/${projectId}/sessions/${started.id}`}>Open the session</a> to follow it.
        </p>
      )}
    </section>
  );
}

import { connectCall, type Call } from '@voice-agent/browser';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, projectPath } from '../api';
import { WORKLET_URLS } from '../call/worklets';
import { useLocation } from '../router';
import type { Agent, VoiceSession } from '../types';
import { Badge, Empty, ErrorNote, Field, Loading, useLoad, usd } from '../ui';

// Call an agent from this browser with the microphone: a console-door session, then the browser
// client (@voice-agent/browser) on its ws_url, so capture and playback are the same AudioWorklets
// as every browser call (the jitter buffer is flushed on `interrupted`). The live transcript marks
// interruptions; the cost shows once settled.

type CallState = 'connecting' | 'live' | 'ended';

interface Line {
  role: 'user' | 'assistant' | 'event';
  text: string;
}

/** Level meters refresh at this pace (the client reports every 20 ms frame). */
const LEVEL_REFRESH_MS = 100;

function interruptionText(heard: string | undefined, droppedMs: number): string {
  const parts = [heard ? `the caller heard: “${heard}”` : '', droppedMs > 0 ? `${droppedMs} ms of queued speech dropped` : ''].filter(Boolean);
  return parts.length ? `interrupted (${parts.join('; ')})` : 'interrupted';
}

export function TestCallPage({ projectId }: { projectId: string }) {
  const { query } = useLocation();
  const agents = useLoad(() => api<Agent[]>('GET', projectPath(projectId, '/agents?limit=200')), [projectId]);
  const [agentId, setAgentId] = useState(query.get('agent') ?? '');
  const [vars, setVars] = useState<Record<string, string>>({});
  const [state, setState] = useState<CallState | 'idle'>('idle');
  const [lines, setLines] = useState<Line[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [session, setSession] = useState<VoiceSession | null>(null);
  const [levels, setLevels] = useState({ input: 0, output: 0 });
  const [muted, setMuted] = useState(false);
  const call = useRef<Call | null>(null);
  /** Hang up pressed before the socket opened: hang up as soon as it does. */
  const hangUpEarly = useRef(false);
  const agent = agents.data?.find((a) => a.id === agentId) ?? (agents.data?.length === 1 ? agents.data[0] : undefined);
  const add = (l: Line) => setLines((cur) => [...cur, l]);

  useEffect(() => () => call.current?.hangUp(), []);

  // While live: show the latest levels a few times a second.
  useEffect(() => {
    if (state !== 'live') return;
    const timer = setInterval(() => {
      if (call.current) setLevels(call.current.levels);
    }, LEVEL_REFRESH_MS);
    return () => clearInterval(timer);
  }, [state]);

  // After the call: poll the session until it is settled, to show the cost.
  useEffect(() => {
    if (state !== 'ended' || !session) return;
    let live = true;
    let tries = 0;
    const poll = async () => {
      const s = await api<VoiceSession>('GET', projectPath(projectId, `/voice/sessions/${session.id}`)).catch(() => null);
      if (!live) return;
      if (s) setSession(s);
      if ((!s || !s.ended_at) && tries++ < 30) setTimeout(() => void poll(), 1000);
    };
    void poll();
    return () => {
      live = false;
    };
  }, [state, session?.id]);

  const wire = (c: Call) => {
    c.on('transcript', ({ role, text }) => add({ role, text }));
    c.on('interrupted', ({ heard, droppedMs }) => add({ role: 'event', text: interruptionText(heard, droppedMs) }));
    c.on('error', ({ message }) => add({ role: 'event', text: message }));
    c.on('end', ({ reason, code }) => {
      if (reason) add({ role: 'event', text: `call ended: ${reason}` });
      else if (code !== 1000 && code !== 1005) add({ role: 'event', text: `the call closed (${code})` });
      call.current = null;
      setLevels({ input: 0, output: 0 });
      setState('ended');
    });
  };

  const begin = async () => {
    if (!agent) return;
    setError(null);
    setLines([]);
    setSession(null);
    setMuted(false);
    hangUpEarly.current = false;
    setState('connecting');
    try {
      const created = await api<{ session: VoiceSession & { sample_rate_in: number; sample_rate_out: number }; ws_url: string }>(
        'POST',
        projectPath(projectId, '/voice/sessions'),
        { agent_id: agent.id, variables: vars, metadata: { source: 'console test call' } },
      );
      setSession(created.session);
      const c = await connectCall({
        wsUrl: created.ws_url,
        sessionId: created.session.id,
        sampleRateIn: created.session.sample_rate_in,
        sampleRateOut: created.session.sample_rate_out,
        workletUrls: WORKLET_URLS,
      });
      call.current = c;
      wire(c);
      setState('live');
      if (hangUpEarly.current) c.hangUp();
    } catch (err) {
      setState('idle');
      setError(err);
    }
  };

  const hangUp = () => {
    hangUpEarly.current = true;
    call.current?.hangUp();
  };

  const toggleMute = () => {
    if (!call.current) return;
    call.current.mute(!call.current.isMuted);
    setMuted(call.current.isMuted);
  };

  return (
    <main>
      <h1>Test call</h1>
      {agents.loading && !agents.data && <Loading what="agents" />}
      <ErrorNote error={agents.error} />
      {agents.data?.length === 0 && (
        <Empty>
          <p>
            No active agent to call. <a href={`/p/${projectId}/agents/new`}>Create an agent</a> first.
          </p>
        </Empty>
      )}
      {agents.data && agents.data.length > 0 && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void begin();
          }}
        >
          <Field label="Agent">
            {(id) => (
              <select id={id} value={agent?.id ?? ''} disabled={state === 'live' || state === 'connecting'} onChange={(e) => setAgentId((e.target as HTMLSelectElement).value)}>
                <option value="">Choose an agent</option>
                {agents.data!.map((a) => (
                  <option key={a.id} value={a.id}>
                    {a.name}
                  </option>
                ))}
              </select>
            )}
          </Field>
          {agent?.variables.map((v) => (
            <Field key={v.name} label={`Variable ${v.name}${v.required ? ' (required)' : ''}`}>
              {(id) => <input id={id} value={vars[v.name] ?? ''} onInput={(e) => setVars({ ...vars, [v.name]: (e.target as HTMLInputElement).value })} />}
            </Field>
          ))}
          <p class="muted">The browser asks for the microphone. Speak, and interrupt the agent to see barge-in.</p>
          <div class="row">
            {state === 'live' || state === 'connecting' ? (
              <>
                <button type="button" class="danger" onClick={hangUp}>
                  Hang up
                </button>
                <button type="button" aria-pressed={muted} disabled={state !== 'live'} onClick={toggleMute}>
                  {muted ? 'Unmute' : 'Mute'}
                </button>
              </>
            ) : (
              <button type="submit" class="primary" disabled={!agent}>
                Start call
              </button>
            )}
            <span aria-live="polite">
              <Badge tone={state === 'live' ? 'good' : undefined}>{state === 'idle' ? 'not in a call' : state}</Badge>
            </span>
          </div>
        </form>
      )}
      {state === 'live' && (
        <div class="row levels">
          <label>
            Microphone <meter min={0} max={1} value={levels.input} />
          </label>
          <label>
            Agent <meter min={0} max={1} value={levels.output} />
          </label>
        </div>
      )}
      <ErrorNote error={error} />
      <h2>Live transcript</h2>
      {lines.length === 0 ? (
        <p class="muted">Nothing said yet.</p>
      ) : (
        <ol class="transcript" aria-live="polite" data-testid="live-transcript">
          {lines.map((l, i) => (
            <li key={i} class={`turn ${l.role}`}>
              <span class="who">{l.role === 'event' ? '·' : l.role}</span> <span class="what">{l.text}</span>
            </li>
          ))}
        </ol>
      )}
      {session && state === 'ended' && (
        <p role="status" data-testid="call-result">
          {session.ended_at ? (
            <>
              Cost {usd(session.cost_nano_usd)} for {session.connected_seconds} s ({session.end_reason}).{' '}
            </>
          ) : (
            'Settling the call… '
          )}
          <a href={`/p/${projectId}/sessions/${session.id}`}>Open the session</a>
        </p>
      )}
    </main>
  );
}

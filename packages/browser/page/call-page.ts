import { startCall, type Call } from '../src/index.js';

// The service's /call page: load the agents a publishable key may call, call one, show the live
// transcript and levels, hang up. `window.callPage` exposes the call's state for tests.

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const keyInput = $<HTMLInputElement>('key');
const agentSelect = $<HTMLSelectElement>('agent');
const callButton = $<HTMLButtonElement>('call');
const muteButton = $<HTMLButtonElement>('mute');
const hangupButton = $<HTMLButtonElement>('hangup');
const status = $<HTMLParagraphElement>('status');
const transcript = $<HTMLOListElement>('transcript');
const inputMeter = $<HTMLMeterElement>('input-level');
const outputMeter = $<HTMLMeterElement>('output-level');

interface PageState {
  state: 'idle' | 'connecting' | 'in-call' | 'ended' | 'failed';
  sessionId: string | null;
  transcripts: { role: string; text: string; at: number }[];
  turns: number;
  interruptions: { heard?: string; droppedMs: number; at: number }[];
  /** Output level samples while in call, [ms since page load, rms]. */
  output: [number, number][];
  peakInput: number;
  end: { reason: string | null; code: number } | null;
  error: string | null;
}
const page: PageState = { state: 'idle', sessionId: null, transcripts: [], turns: 0, interruptions: [], output: [], peakInput: 0, end: null, error: null };
(window as unknown as { callPage: PageState }).callPage = page;
let call: Call | null = null;

const params = new URLSearchParams(location.search);
keyInput.value = params.get('key') ?? '';

function setStatus(state: PageState['state'], text: string): void {
  page.state = state;
  status.textContent = text;
  const inCall = state === 'in-call';
  callButton.disabled = inCall || state === 'connecting' || !agentSelect.value;
  muteButton.disabled = !inCall;
  hangupButton.disabled = !inCall;
}

async function loadAgents(): Promise<void> {
  const res = await fetch('/call/agents', { method: 'POST', headers: { 'x-publishable-key': keyInput.value.trim(), 'content-type': 'application/json' }, body: '{}' });
  const body = (await res.json()) as { id: string; name: string }[] | { detail: string };
  if (!res.ok || !Array.isArray(body)) {
    setStatus('failed', `Could not load agents: ${'detail' in body ? body.detail : res.status}`);
    return;
  }
  agentSelect.replaceChildren(...body.map((a) => new Option(a.name, a.id)));
  const wanted = params.get('agent');
  if (wanted && body.some((a) => a.id === wanted)) agentSelect.value = wanted;
  setStatus('idle', body.length ? `${body.length} agent(s) available` : 'This key allows no agents');
}

function addLine(role: string, text: string): void {
  const li = document.createElement('li');
  li.className = role;
  li.textContent = `${role === 'user' ? 'You' : 'Agent'}: ${text}`;
  transcript.append(li);
}

async function placeCall(): Promise<void> {
  setStatus('connecting', 'Connecting…');
  transcript.replaceChildren();
  try {
    call = await startCall({ publishableKey: keyInput.value.trim(), agentId: agentSelect.value, baseUrl: location.origin, workletBaseUrl: new URL('/call/assets/', location.href) });
  } catch (err) {
    page.error = err instanceof Error ? err.message : String(err);
    setStatus('failed', `Call failed: ${page.error}`);
    return;
  }
  page.sessionId = call.sessionId;
  setStatus('in-call', 'In call');
  call.on('transcript', (t) => {
    page.transcripts.push({ ...t, at: performance.now() });
    addLine(t.role, t.text);
  });
  call.on('turn', () => page.turns++);
  call.on('interrupted', (i) => page.interruptions.push({ ...i, at: performance.now() }));
  call.on('error', (e) => (status.textContent = `In call (server: ${e.message})`));
  call.on('level', (l) => {
    inputMeter.value = l.input;
    outputMeter.value = l.output;
    page.peakInput = Math.max(page.peakInput, l.input);
    page.output.push([Math.round(performance.now()), l.output]);
  });
  const end = await call.ended;
  page.end = end;
  call = null;
  setStatus('ended', `Call ended${end.reason ? ` (${end.reason.replace(/_/g, ' ')})` : ''}`);
}

$<HTMLButtonElement>('load').addEventListener('click', () => void loadAgents());
agentSelect.addEventListener('change', () => setStatus(page.state, status.textContent ?? ''));
$<HTMLFormElement>('setup').addEventListener('submit', (ev) => {
  ev.preventDefault();
  void placeCall();
});
muteButton.addEventListener('click', () => {
  if (!call) return;
  call.mute(!call.isMuted);
  muteButton.setAttribute('aria-pressed', String(call.isMuted));
  muteButton.textContent = call.isMuted ? 'Unmute' : 'Mute';
});
hangupButton.addEventListener('click', () => call?.hangUp());
if (keyInput.value) void loadAgents();

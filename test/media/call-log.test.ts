import t from 'tap';
import { Writable } from 'node:stream';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { createLogger } from '../../src/shared/logger.js';
import { startMediaNode } from '../../src/roles/media.js';
import { createAgent, fund, MINUTE_NANO } from '../sessions/fixtures.js';
import { admit, connect, mediaUrl, sine, sleep, until } from './client.js';

// The media role's structured call log: one line when a call starts, one when it ends, through
// the service's redacting logger.

const lines: Record<string, unknown>[] = [];
const sink = new Writable({
  write(chunk, _enc, done) {
    for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
    done();
  },
});
const h = await startHarness();
t.teardown(h.close);
const media = await startMediaNode({ ...h.ctx, log: createLogger('info', 'voice', sink) }, { port: 0, host: '127.0.0.1' });
t.teardown(() => media.drain(0));
const tenant = await createTenant(h);
const agent = await createAgent(h, tenant.projectId);
await fund(h, tenant.projectId, 1_000n * MINUTE_NANO);

const ofSession = (msg: string, id: string) => lines.filter((l) => l.msg === msg && l.session_id === id);

t.test('a call logs its start and its end with direction, duration, end reason, drops and barge-ins', async (t) => {
  const a = await admit(h, tenant.machine, { agent_id: agent.agentId });
  const c = connect(mediaUrl(a.ws_url, media.port));
  await c.opened;
  await until(() => ofSession('call started', a.session.id).length === 1);
  const [started] = ofSession('call started', a.session.id);
  t.match(started, { level: 30, role: 'media', session_id: a.session.id, project_id: tenant.projectId, direction: 'web' });
  for (let i = 0; i < 40; i++) {
    c.ws.send(sine(16000, 20, 440, i * 320));
    await sleep(20);
  }
  await until(() => c.binary.length >= 35);
  t.equal(ofSession('call ended', a.session.id).length, 0, 'no end line while the call runs');
  c.ws.send(JSON.stringify({ type: 'stop' }));
  await c.closed;
  await until(() => ofSession('call ended', a.session.id).length === 1);
  const [ended] = ofSession('call ended', a.session.id);
  t.match(ended, { level: 30, role: 'media', direction: 'web', outcome: 'completed', end_reason: 'caller_hangup', frames_dropped: 0, barge_ins: 0, frames_in: 40 });
  t.ok((ended.frames_out as number) >= c.binary.length, 'frames out as sent');
  t.ok((ended.duration_ms as number) >= 700 && (ended.duration_ms as number) < 10_000, `duration ${ended.duration_ms} ms`);
  t.ok(lines.indexOf(started) < lines.indexOf(ended), 'start before end');
  const token = new URL(a.ws_url).searchParams.get('token')!;
  t.notOk(JSON.stringify(lines).includes(token), 'the session token is never logged');
});

t.test('a call the server ends logs its reason', async (t) => {
  const a = await admit(h, tenant.machine, { agent_id: agent.agentId, max_duration_seconds: 1 });
  const c = connect(mediaUrl(a.ws_url, media.port));
  await c.opened;
  const closed = await c.closed;
  t.equal(closed.code, 1000);
  await until(() => ofSession('call ended', a.session.id).length === 1);
  t.match(ofSession('call ended', a.session.id)[0], { end_reason: 'max_duration', outcome: 'completed', frames_in: 0 });
});

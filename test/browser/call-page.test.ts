import { join } from 'node:path';
import t from 'tap';
import type { Browser, Page } from 'playwright-core';
import { ConsoleClient } from '../../packages/sdk/src/index.js';
import { fundedTenant, localAgentBody, startService } from '../sdk/service.js';
import { ARTIFACTS, callerWav, launchChromium, startForeignSite } from './support.js';

// The /call page in Debian's chromium against the real service on the `local` provider
// (PocketSphinx, the `echo` model, espeak-ng). The fake microphone plays espeak-ng speech that
// starts while the agent's long greeting is playing: the greeting plays (output level through
// the page's test hook), the caller's speech barges in and the page flushes its playback at
// once, the caller's words come back as a transcript and as the echo model's answer, and
// hanging up settles the session. A page on an origin the key does not list is refused.
// (The barge-in lands on the greeting because its timing is fixed; how long PocketSphinx takes
// on a loaded machine is not, so speech aimed at a later answer could miss it.)

const GREETING =
  'Hello, this is the demo agent. Let me tell you about our opening hours in detail. We open at nine in the morning on weekdays. ' +
  'On Saturdays we open a little later, at ten. On Sundays we are closed all day.';
const SPEECH = 'Good morning. I would like to book a table for two people.';

const wav = callerWav({ leadSeconds: 4, speech: SPEECH });
const svc = await startService({ pipeline: 'agent' });
const tenant = await fundedTenant(svc.h);
const consoleClient = await ConsoleClient.login({ baseUrl: svc.baseUrl, email: tenant.email, password: tenant.password });
const project = consoleClient.project(tenant.projectId);
const browser: Browser = await launchChromium(wav.path);
t.teardown(async () => {
  await browser.close();
  await svc.close();
});

const agent = (await project.agents.create(localAgentBody(tenant.localAccountId, { name: 'Demo agent', greeting: GREETING }))).agent;
const key = await project.publishableKeys.create({ name: 'call page', origins: [svc.baseUrl], agent_ids: [agent.id] });

interface PageState {
  state: string;
  sessionId: string | null;
  transcripts: { role: string; text: string; at: number }[];
  turns: number;
  interruptions: { heard?: string; droppedMs: number; at: number }[];
  output: [number, number][];
  peakInput: number;
  end: { reason: string | null; code: number } | null;
  error: string | null;
}
const state = (page: Page) => page.evaluate(() => (window as unknown as { callPage: PageState }).callPage);
async function waitState(page: Page, ok: (s: PageState) => boolean, timeoutMs: number, what: string): Promise<PageState> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const s = await state(page);
    if (ok(s)) return s;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}: ${JSON.stringify({ ...s, output: s.output.length })}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
const shot = (page: Page, name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

t.test('a call from the /call page on an allowed origin', async (t) => {
  const page = await browser.newPage();
  const logs: string[] = [];
  page.on('console', (m) => logs.push(m.text()));
  t.teardown(() => page.close());
  await page.goto(`${svc.baseUrl}/call?key=${key.key}&agent=${agent.id}`);
  await page.waitForFunction(() => (document.getElementById('agent') as HTMLSelectElement).options.length > 0);
  t.equal(await page.locator('#agent option').first().textContent(), 'Demo agent', 'the picker lists the allowed agent');
  await shot(page, '1-ready');

  await page.click('#call');
  const inCall = await waitState(page, (s) => s.state === 'in-call' || s.state === 'failed', 15_000, 'the call');
  t.equal(inCall.state, 'in-call', inCall.error ?? 'connected');

  // The greeting plays: the speaker level rises before the caller says anything.
  const playing = await waitState(page, (s) => s.output.some(([, v]) => v > 0.01), 20_000, 'the greeting audio');
  t.ok(playing.output.length > 0, 'greeting audible at the speaker');

  // The caller speaks over the greeting: the server says `interrupted`, the page flushes its
  // playback buffer and the speaker goes quiet at once.
  const cut = await waitState(page, (s) => s.interruptions.length > 0, 30_000, 'an interruption');
  const flush = cut.interruptions[0];
  const before = cut.output.filter(([at]) => at < flush.at).map(([, v]) => v);
  t.ok(Math.max(...before) > 0.01, `greeting output RMS peaked at ${Math.max(...before).toFixed(4)} before the barge-in`);
  const heardText = flush.heard ?? '';
  t.ok(heardText.length > 0 && heardText.length < GREETING.length && GREETING.startsWith(heardText.slice(0, 20)), `heard before the barge-in: "${heardText}"`);
  t.ok(flush.droppedMs > 0, `${flush.droppedMs} ms of queued audio dropped by the flush`);
  const after = await waitState(page, (s) => s.output.some(([at]) => at > flush.at + 300), 5_000, 'levels after the flush');
  const quiet = after.output.filter(([at]) => at > flush.at + 30 && at < flush.at + 300).map(([, v]) => v);
  t.ok(quiet.length > 0 && Math.max(...quiet) < 0.001, `speaker RMS after the flush: max ${Math.max(...quiet).toFixed(5)} over ${quiet.length} readings`);

  // The caller's words come back as a transcript, then as the echo model's spoken answer.
  const heard = await waitState(page, (s) => s.transcripts.some((x) => x.role === 'user'), 40_000, "the caller's transcript");
  const user = heard.transcripts.find((x) => x.role === 'user')!;
  t.ok(user.text.split(' ').length >= 3, `PocketSphinx heard: "${user.text}"`);
  t.ok(heard.peakInput > 0.01, `microphone RMS peaked at ${heard.peakInput.toFixed(4)}`);
  const answered = await waitState(page, (s) => s.transcripts.some((x) => x.role === 'assistant' && x.at > user.at), 40_000, 'the answer');
  const answer = answered.transcripts.find((x) => x.role === 'assistant' && x.at > user.at)!;
  t.equal(answer.text, `You said: ${user.text}`);
  const answerPeak = Math.max(...answered.output.filter(([at]) => at > user.at).map(([, v]) => v));
  t.ok(answerPeak > 0.01, `answer output RMS peaked at ${answerPeak.toFixed(4)}`);
  await shot(page, '2-in-call');

  await page.click('#hangup');
  const ended = await waitState(page, (s) => s.state === 'ended', 10_000, 'the end');
  t.same(ended.end, { reason: 'caller_hangup', code: 1000 });
  await page.waitForFunction(() => document.getElementById('status')!.textContent!.startsWith('Call ended'));
  await shot(page, '3-ended');

  // The session settles: completed, charged, slot released.
  let row: { status: string; end_reason: string; cost_nano_usd: string | null } | undefined;
  for (let i = 0; i < 50; i++) {
    [row] = await svc.h.ctx.sql<{ status: string; end_reason: string; cost_nano_usd: string | null }[]>`select status, end_reason, cost_nano_usd::text from voice_sessions where id = ${ended.sessionId}`;
    if (row?.cost_nano_usd) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  t.match(row, { status: 'completed', end_reason: 'caller_hangup' });
  t.ok(row?.cost_nano_usd && BigInt(row.cost_nano_usd) > 0n, `settled: ${row?.cost_nano_usd} nano-USD`);
  if (t.passing() === false) t.comment(logs.join('\n'));
});

t.test('a page on another origin', async (t) => {
  const site = await startForeignSite(svc.baseUrl);
  t.teardown(() => site.close());
  const page = await browser.newPage();
  t.teardown(() => page.close());
  const sessionsBefore = Number((await svc.h.ctx.sql`select count(*)::int as n from voice_sessions where project_id = ${tenant.projectId}`)[0].n);

  await page.goto(`${site.origin}/?key=${key.key}&agent=${agent.id}`);
  const refused = (await page.evaluate(() => (window as unknown as { result: Promise<unknown> }).result)) as { ok: boolean; error?: string };
  t.equal(refused.ok, false, 'refused');
  t.match(refused.error, /Failed to fetch/, 'the browser blocks the answer: no CORS headers for an unlisted origin');
  const sessionsAfter = Number((await svc.h.ctx.sql`select count(*)::int as n from voice_sessions where project_id = ${tenant.projectId}`)[0].n);
  t.equal(sessionsAfter, sessionsBefore, 'no session was admitted');
  await shot(page, '4-other-origin-refused');

  // The same page once its origin is on the key's list: the cross-origin call goes through.
  const listed = await project.publishableKeys.create({ name: 'other site', origins: [site.origin], agent_ids: [agent.id] });
  await page.goto(`${site.origin}/?key=${listed.key}&agent=${agent.id}`);
  const allowed = (await page.evaluate(() => (window as unknown as { result: Promise<unknown> }).result)) as { ok: boolean; error?: string; end?: { code: number } };
  t.equal(allowed.ok, true, allowed.error ?? 'called cross-origin');
  t.equal(allowed.end?.code, 1000);
});

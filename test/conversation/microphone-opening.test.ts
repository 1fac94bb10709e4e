import t from 'tap';
import type { ScriptedCaller } from './caller.js';
import { call, isAssistant, isUser, openAiPipeline, setupAgent, speech, startCallTests } from './fixtures.js';

// A browser's microphone often delivers digital zeros before the device runs; then the room's
// noise starts. Through the real media socket, over a greeting: the noise that follows the zeros
// does not interrupt the greeting (the scorers seeded their floor from the zeros, and took the
// room for a caller 60-100 ms after it started), and a caller who then speaks does.

const { h, fake, media } = await startCallTests(t);
const GREETING = 'Hello, thank you for calling the city clinic. I can help you book, move or cancel an appointment, and answer questions about our services and opening hours.';

/** Waits until `ms` of agent audio arrived. */
async function agentPlayed(caller: ScriptedCaller, ms: number): Promise<void> {
  const end = performance.now() + 20_000;
  while (caller.audioSamplesAfter(0) < (caller.rateOut * ms) / 1000) {
    if (performance.now() > end) throw new Error(`no ${ms} ms of agent audio`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

for (const [openMs, noiseDbfs] of [[300, -60], [1000, -70], [300, -50]] as const) {
  t.test(`zeros until ${openMs} ms into the greeting, then room noise at ${noiseDbfs} dBFS: the greeting plays on; a caller cuts it`, async (t) => {
    fake.script.transcripts = ['what are your hours'];
    fake.script.replies = ['We open at nine.'];
    const setup = await setupAgent(h, (pid) => openAiPipeline(h, pid, fake.baseUrl), { greeting: GREETING });
    const { caller } = await call(h, media, setup);
    // The caller sends zeros from the start (ScriptedCaller); the room opens while the greeting plays.
    await agentPlayed(caller, openMs);
    caller.backgroundNoise(32768 * 10 ** (noiseDbfs / 20));
    await new Promise((r) => setTimeout(r, 2500));
    t.equal(caller.frames('interrupted').length, 0, 'the room noise did not interrupt the greeting');
    const playedMs = (caller.audioSamplesAfter(0) * 1000) / caller.rateOut;
    t.ok(playedMs >= openMs + 2000, `the greeting kept playing (${Math.round(playedMs)} ms of it arrived)`);
    t.equal(caller.frames('transcript').filter(isUser).length, 0, 'nothing was taken for the caller');

    caller.say(speech('What are your hours?'), 'barge');
    caller.silence(1500);
    const interrupted = await caller.waitFor((f) => f.type === 'interrupted', 10_000);
    const after = Math.round(interrupted.at - caller.marks.get('barge')!);
    t.ok(after < 600, `the caller interrupted the greeting ${after} ms after starting`);
    t.ok(GREETING.startsWith(String(interrupted.frame.heard)), 'heard is a prefix of the greeting');
    const user = await caller.waitFor(isUser, 15_000);
    t.equal(user.frame.text, 'what are your hours');
    await caller.waitFor((f) => isAssistant(f) && f.text === 'We open at nine.', 15_000);
    caller.hangUp();
    await caller.closed;
  });
}

// The turn benchmark's evaluation phases (run by bench/turns/run.ts after its scenario mix):
// the evaluation set (bench/turns/eval-set.ts) placed through the real media socket, web and
// Twilio media streams side by side, once per load variant: `quiet`, `cpu` (a spinning child
// process of the bench's own priority keeps a core busy) and `stalls` (the media server's event
// loop is held 50-200 ms every 0.5-3 s). Each phase gets a fresh media server
// (bench/turns/eval-server.ts); the callers (bench/turns/eval-callers.ts) stay up across phases.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { loadavg, setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAgent } from '../../src/agents/service.js';
import type { AppContext } from '../../src/shared/app-context.js';
import { AgentCreateBody } from '../../src/contract/agents.js';
import { setCallParties } from '../../src/db/repos/carrier-calls.js';
import { createCarrier } from '../../src/db/repos/carriers.js';
import { admitCall } from '../../src/sessions/admission.js';
import { nextMessage } from '../media/ipc.js';
import type { EvalCallersReport, EvalCallResult, EvalTarget } from './eval-callers.js';
import type { EvalServerReport } from './eval-server.js';
import { evalSet, HALVES, MATERIAL, PATH_RATE_HZ, slotsFor, type EvalCall, type EvalSizes, type Half, type LoadKind } from './eval-set.js';
import { summarizeEval, type EvalPhase } from './eval-summary.js';

const here = dirname(fileURLToPath(import.meta.url));

export interface EvalOptions {
  ctx: AppContext;
  projectId: string;
  /** The `local` provider account the agents' stages name (the fakes are injected). */
  providerAccountId: string;
  env: NodeJS.ProcessEnv;
  /** Scheduling priority of the bench's processes (0: left alone); the cpu spinner gets the same. */
  priority: number;
}

export const EVAL_SEED = Number(process.env.BENCH_EVAL_SEED ?? 20261124);
const SCALE = Number(process.env.BENCH_EVAL_SCALE ?? 1);
const SLOTS = Number(process.env.BENCH_EVAL_SLOTS ?? 48);
const LOADS = (process.env.BENCH_EVAL_LOADS ?? 'quiet,cpu,stalls').split(',').filter(Boolean) as LoadKind[];
/** Halves placed under load (the quiet phase places both). */
const LOAD_HALVES = (process.env.BENCH_EVAL_LOAD_HALVES ?? 'heldout').split(',') as Half[];
/** BENCH_EVAL_ONLY: a regular expression on call ids (e.g. `heldout/web/trials`), for investigations. */
const ONLY = process.env.BENCH_EVAL_ONLY ? new RegExp(process.env.BENCH_EVAL_ONLY) : null;

export function evalSizes(scale = SCALE): EvalSizes {
  const n = (k: number) => Math.max(1, Math.round(k * scale));
  // The halves are the same size since round 30: with 14 tuning calls per path (4 over echo) the
  // tuning half could not tell an echo change's gain from its cost (docs/benchmarks-turns.md).
  return { trialCalls: { heldout: n(30), tuning: n(30) }, listenerEcho: n(3), listenerMs: Number(process.env.BENCH_EVAL_LISTENER_MS ?? 60_000) };
}

/** The next message of `p` that `pick` accepts; rejects if `p` exits first. */
function fromChild<T>(p: ChildProcess, pick: (m: any) => boolean, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`${what}: the child process exited (${code}) first`));
    p.once('exit', onExit);
    nextMessage<T>(p, pick).then((m) => {
      p.off('exit', onExit);
      resolve(m);
    }, reject);
  });
}

const exited = (p: ChildProcess) => new Promise<void>((r) => (p.exitCode !== null || p.signalCode !== null ? r() : p.once('exit', () => r())));

export async function runEval(o: EvalOptions): Promise<{ json: unknown; table: string }> {
  const { ctx, projectId } = o;
  const t0 = performance.now();
  const calls = evalSet(EVAL_SEED, evalSizes()).filter((c) => !ONLY || ONLY.test(c.id));
  const children: ChildProcess[] = [];
  const child = (file: string) => {
    const c = fork(join(here, file), [], { execArgv: ['--import', 'tsx'], env: o.env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    if (o.priority !== 0 && c.pid) {
      try {
        setPriority(c.pid, o.priority);
      } catch {
        // not allowed: left alone
      }
    }
    children.push(c);
    return c;
  };

  // Agents: per half, medium answers (trial calls) and long answers (listener calls); both greet,
  // and remind after 2 s of silence.
  const agents: Record<string, string> = {};
  for (const half of HALVES) {
    for (const answer of ['medium', 'long'] as const) {
      const body = AgentCreateBody.parse({
        name: `bench eval ${half} ${answer}`,
        prompt: `BENCH:eval:${half}:${answer}`,
        pipeline_mode: 'cascade',
        pipeline_config: {
          stt: { account_id: o.providerAccountId, model: 'pocketsphinx-en-us' },
          llm: { account_id: o.providerAccountId, model: 'echo' },
          tts: { account_id: o.providerAccountId, model: 'espeak-ng', voice: MATERIAL[half].agentVoice },
        },
        language: 'en-US',
        greeting: MATERIAL[half].greeting,
        idle_warn_seconds: 2,
        backchannel: false,
        max_duration_seconds: 3600,
      });
      agents[`${half}/${answer}`] = (await createAgent(ctx, projectId, body)).agent.id;
    }
  }
  const accountSid = `AC${randomBytes(16).toString('hex')}`;
  const carrier = await createCarrier(ctx, projectId, { kind: 'twilio', label: 'bench eval', credentials: { account_sid: accountSid, auth_token: randomBytes(16).toString('hex') }, baseUrl: null });

  const callers = child('eval-callers.ts');
  const phases: EvalPhase[] = [];
  try {
    await fromChild(callers, (m) => m?.type === 'ready', 'callers');
    const tp = performance.now();
    const prepared = fromChild(callers, (m) => m?.type === 'prepared', 'callers');
    callers.send({ cmd: 'prepare', calls });
    await prepared;
    console.log(`evaluation set: ${calls.length} calls (seed ${EVAL_SEED}), audio prepared in ${Math.round((performance.now() - tp) / 1000)} s`);

    for (const load of LOADS) {
      const phaseCalls = calls.filter((c) => load === 'quiet' || LOAD_HALVES.includes(c.half));
      const server = child('eval-server.ts');
      const { port } = await fromChild<{ port: number }>(server, (m) => m?.type === 'ready', 'media server');
      const targets = new Map<string, EvalTarget>();
      for (const c of phaseCalls) targets.set(c.id, await admit(o, c, port, agents, carrier.id, accountSid));
      const slots = slotsFor(phaseCalls, SLOTS).map((s) => s.map((c) => targets.get(c.id)!));
      let spinner: ChildProcess | null = null;
      if (load === 'cpu') {
        spinner = spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' });
        if (o.priority !== 0 && spinner.pid) {
          try {
            setPriority(spinner.pid, o.priority);
          } catch {
            // left at the default priority
          }
        }
      }
      if (load === 'stalls') server.send({ cmd: 'stalls', seed: EVAL_SEED });
      const load0 = loadavg()[0];
      const loadSamples: number[] = [];
      const loadTimer = setInterval(() => loadSamples.push(Math.round(loadavg()[0] * 100) / 100), 5000);
      console.log(`evaluation phase ${load}: ${phaseCalls.length} calls in ${slots.length} slots`);
      const started = performance.now();
      server.send({ cmd: 'measure-start' });
      const done = fromChild<{ results: EvalCallResult[]; report: EvalCallersReport }>(callers, (m) => m?.type === 'done', 'callers');
      callers.send({ cmd: 'run', slots });
      const { results, report: callersReport } = await done;
      const durationMs = performance.now() - started;
      clearInterval(loadTimer);
      if (spinner?.pid) {
        spinner.kill('SIGKILL');
        await exited(spinner);
      }
      const reportMsg = fromChild<{ report: EvalServerReport }>(server, (m) => m?.type === 'report', 'media server');
      server.send({ cmd: 'report' });
      const { report } = await reportMsg;
      server.send({ cmd: 'exit' });
      await Promise.race([exited(server), new Promise((r) => setTimeout(r, 10_000))]);
      if (server.exitCode === null) server.kill('SIGKILL');
      phases.push({ load, calls: phaseCalls, results, server: report, callers: callersReport, durationMs, loadavg: { atStart: Math.round(load0 * 100) / 100, during: loadSamples } });
      console.log(`  ${Math.round(durationMs / 1000)} s, ${results.filter((r) => r.error).length} calls failed`);
    }
  } finally {
    callers.send({ cmd: 'exit' });
    await Promise.race([exited(callers), new Promise((r) => setTimeout(r, 5000))]);
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  }
  // BENCH_EVAL_DUMP=<file>: every phase's raw records (caller timings, server logs), for investigations.
  if (process.env.BENCH_EVAL_DUMP) writeFileSync(process.env.BENCH_EVAL_DUMP, JSON.stringify(phases));
  return summarizeEval(phases, { seed: EVAL_SEED, sizes: evalSizes(), slots: SLOTS, wallMs: performance.now() - t0 });
}

/** Admits the call's session (web, or a Twilio phone call of the bench's carrier) with a token that lasts the phase. */
async function admit(o: EvalOptions, c: EvalCall, port: number, agents: Record<string, string>, carrierId: string, accountSid: string): Promise<EvalTarget> {
  const rate = PATH_RATE_HZ[c.path];
  const agentId = agents[`${c.half}/${c.role === 'listener' ? 'long' : 'medium'}`];
  if (c.path === 'web') {
    const { row, token } = await admitCall(o.ctx, o.projectId, { direction: 'web', agent_id: agentId, variables: {}, sample_rate_in: rate, sample_rate_out: rate, encoding: 'pcm16', tokenTtlSeconds: 3600 });
    return { call: c, url: `ws://127.0.0.1:${port}/v2/voice/sessions/${row.id}/stream?token=${token}` };
  }
  const callSid = `CA${randomBytes(16).toString('hex')}`;
  const direction = c.direction === 'inbound' ? 'inbound' : 'outbound';
  const { row, token } = await admitCall(o.ctx, o.projectId, {
    direction,
    agent_id: agentId,
    variables: {},
    sample_rate_in: rate,
    sample_rate_out: rate,
    encoding: 'pcm16',
    tokenTtlSeconds: 3600,
    finish: (tx, inserted) => setCallParties(tx, inserted.id, { carrierId, fromE164: '+14155550100', toE164: '+14155559999', callSid }),
  });
  return { call: c, url: `ws://127.0.0.1:${port}/v2/carriers/twilio/stream`, carrier: { sessionId: row.id, token, accountSid, callSid } };
}

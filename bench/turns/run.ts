// npm run bench:turns — turn-taking figures of the cascade engine through the real media
// socket: answer latency the pipeline adds (endpointing decided → first answer frame),
// barge-in latency (speech onset → `interrupted`) and false barge-ins on noise and on the
// agent's own echo, against a naive energy-threshold baseline replayed on the same microphone
// streams. Providers are instant in-process fakes; Postgres and Redis are real (a throwaway
// database). Server and callers run in separate processes. Then the evaluation set
// (bench/turns/eval.ts): held-out and tuning callers on web and Twilio media streams, quiet and
// under load. Writes bench/results/turns.json.
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, setPriority, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAgent } from '../../src/agents/service.js';
import { loadConfig } from '../../src/config/env.js';
import { closeContext, createContext } from '../../src/context.js';
import { AgentCreateBody } from '../../src/contract/agents.js';
import { DEFAULT_INTERRUPTION } from '../../src/conversation/interruption.js';
import { createAccount } from '../../src/db/repos/accounts.js';
import { createProject, setProjectLimits } from '../../src/db/repos/projects.js';
import { createProviderAccount } from '../../src/db/repos/provider-accounts.js';
import { dropDatabase } from '../../src/shared/sql.js';
import { admitSession } from '../../src/sessions/admission.js';
import { walletCredit } from '../../src/sessions/wallet.js';
import { Keyring } from '../../src/shared/crypto/keyring.js';
import { createLogger } from '../../src/shared/logger.js';
import { nextMessage } from '../media/ipc.js';
import { BASELINE_MAIN_DBFS, BASELINE_NAME } from './baseline.js';
import type { CallerResult, CallersReport } from './callers.js';
import { RATE_IN_HZ, RATE_OUT_HZ, scenarioMix, type CallPlan } from './scenarios.js';
import type { ServerReport } from './server.js';
import { printProbes, runProbes } from './probe.js';
import { summarize } from './summary.js';
import { runEval } from './eval.js';

const here = dirname(fileURLToPath(import.meta.url));
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 100_000);
const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const PG_BASE = process.env.TEST_DATABASE_BASE ?? 'postgres://postgres@127.0.0.1:5432';
const dbName = `voice_bench_turns_${process.pid}_${randomBytes(3).toString('hex')}`;
const redisPrefix = `vc:bench-turns:${dbName}:`;
const env = { ...process.env, DATABASE_URL: `${PG_BASE}/${dbName}`, BENCH_REDIS_PREFIX: redisPrefix, LOG_LEVEL: 'silent' };
const OUT = process.env.BENCH_OUT ?? join(here, '..', 'results', 'turns.json');

const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
// The bench shares its machine with whatever else runs (test suites): its two processes get a
// higher scheduling priority when allowed (BENCH_PRIORITY, default -10; 0 leaves it alone).
const PRIORITY = Number(process.env.BENCH_PRIORITY ?? -10);
let priorityApplied = false;
const child = (file: string, prof: string[] = []) => {
  const c = fork(join(here, file), [], { execArgv: ['--import', 'tsx', ...prof], env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  if (PRIORITY !== 0 && c.pid) {
    try {
      setPriority(c.pid, PRIORITY);
      priorityApplied = true;
    } catch {
      priorityApplied = false;
    }
  }
  return c;
};
const exited = (p: ChildProcess) => new Promise<void>((r) => (p.exitCode !== null ? r() : p.once('exit', () => r())));
const round = (v: number, d = 2) => Math.round(v * 10 ** d) / 10 ** d;

function gitInfo(): { commit: string; src_changed: boolean | null; native_changed: boolean | null } {
  try {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    const changed = (path: string) => execFileSync('git', ['status', '--porcelain', '--', path], { encoding: 'utf8' }).trim().length > 0;
    return { commit, src_changed: changed('src'), native_changed: changed('native') };
  } catch {
    return { commit: 'unknown', src_changed: null, native_changed: null };
  }
}

const config = loadConfig(env);
const ctx = await createContext(config, { log: createLogger('silent'), keyring: new Keyring([{ id: 'b', key: randomBytes(32) }]), redisPrefix });
const machine = { cpus: cpus().length, cpu_model: cpus()[0]?.model ?? '', mem_gib: round(totalmem() / 2 ** 30, 1), loadavg_at_start: loadavg().map((v) => round(v)) };
const children: ChildProcess[] = [];
const tables: string[] = [];
let failed = false;
try {
  const account = await createAccount(ctx, `bench-turns-${process.pid}@example.com`, 'bench password 123', true);
  const project = await createProject(ctx, account.id, 'bench turns');
  await setProjectLimits(ctx, project.id, { max_concurrent_sessions: 1000 });
  await walletCredit(ctx, project.id, 10n ** 15n);
  const acct = await createProviderAccount(ctx, project.id, { provider: 'local', label: 'local', apiKey: null, baseUrl: null });
  // The local engines are never run (the adapter factory injects the fakes); the account only has to be usable.
  await ctx.sql`update provider_accounts set status = 'verified' where id = ${acct.id}`;
  const pipeline = { stt: { account_id: acct.id, model: 'pocketsphinx-en-us' }, llm: { account_id: acct.id, model: 'echo' }, tts: { account_id: acct.id, model: 'espeak-ng', voice: 'en-us' } };
  const agent = async (answer: 'short' | 'long') => {
    const body = AgentCreateBody.parse({ name: `bench ${answer}`, prompt: `BENCH:${answer}`, pipeline_mode: 'cascade', pipeline_config: pipeline, language: 'en-US', backchannel: false, max_duration_seconds: 3600 });
    return (await createAgent(ctx, project.id, body)).agent.id;
  };
  const agents = { short: await agent('short'), long: await agent('long') };

  // The scenario mix (BENCH_MIX=0 skips it), then the evaluation set (BENCH_EVAL=0 skips it).
  const runMix = async () => {
    const server = child('server.ts', profile);
    const callers = child('callers.ts');
    children.push(server, callers);
    const { port } = await nextMessage<{ port: number }>(server, (m) => m?.type === 'ready');
    await nextMessage(callers, (m) => m?.type === 'ready');

    // BENCH_ONLY (a regular expression on scenario names) runs a subset, for investigations.
    const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : null;
    const scenarios = scenarioMix(SCALE).filter((s) => !only || only.test(s.name));
    const plans: CallPlan[] = [];
    for (const [i, scenario] of scenarios.entries()) {
      const admitted = await admitSession(ctx, project.id, {
        agent_id: scenario.kind === 'latency' ? agents.short : agents.long,
        sample_rate_in: RATE_IN_HZ,
        sample_rate_out: RATE_OUT_HZ,
        variables: {},
        encoding: 'pcm16',
      } as never);
      const url = new URL(admitted.ws_url);
      url.port = String(port);
      plans.push({ sessionId: admitted.session.id, url: url.toString(), scenario, seed: 1000 + i });
    }
    console.log(`${plans.length} concurrent calls for ${DURATION_MS / 1000} s (${machine.cpus} CPUs, load ${machine.loadavg_at_start.join(' ')})`);
    const loadSamples: number[] = [];
    const loadTimer = setInterval(() => loadSamples.push(loadavg()[0]), 5000);

    server.send({ cmd: 'measure-start' });
    const done = nextMessage<{ results: CallerResult[]; report: CallersReport }>(callers, (m) => m?.type === 'done');
    callers.send({ cmd: 'start', plans, durationMs: DURATION_MS });
    const { results, report: callersReport } = await done;
    clearInterval(loadTimer);
    const reportMsg = nextMessage<{ report: ServerReport }>(server, (m) => m?.type === 'report');
    server.send({ cmd: 'report' });
    const { report } = await reportMsg;
    server.send({ cmd: 'exit' });
    callers.send({ cmd: 'exit' });
    await Promise.all(children.map(exited));

    const summary = summarize(results, report, callersReport);
    // The same barge-in path in simulated time, free of the machine's load (bench/turns/probe.ts).
    const probe = process.env.BENCH_PROBE === '0' ? null : runProbes();
    const out = {
      date: new Date().toISOString(),
      node: process.version,
      git: gitInfo(),
      machine: { ...machine, loadavg_during_1m: loadSamples.map((v) => round(v)), loadavg_at_end: loadavg().map((v) => round(v)) },
      setup: {
        concurrent_calls: plans.length,
        process_priority: priorityApplied ? PRIORITY : 0,
        duration_s: DURATION_MS / 1000,
        sample_rate_in_hz: RATE_IN_HZ,
        sample_rate_out_hz: RATE_OUT_HZ,
        stt: process.env.BENCH_STT === 'streaming' ? 'instant streaming fake (final on commit)' : 'instant utterance fake (streaming: false, final on commit)',
        llm: 'instant fake: whole reply in one event',
        tts: 'instant fake: espeak-ng speech synthesized at start, one chunk per sentence',
        interruption: { ...DEFAULT_INTERRUPTION, ...(process.env.BENCH_INTERRUPTION ? JSON.parse(process.env.BENCH_INTERRUPTION) : {}) },
        interruption_overrides: process.env.BENCH_INTERRUPTION ? JSON.parse(process.env.BENCH_INTERRUPTION) : null,
        baseline: `${BASELINE_NAME}: mic RMS above a threshold for 100 ms (5 x 20 ms frames), re-armed after 120 ms below; replayed offline on the recorded microphone frames; headline threshold ${BASELINE_MAIN_DBFS} dBFS`,
        caller_speech_level_dbfs: -20,
      },
      ...summary.json,
      probe,
    };
    tables.push(summary.table);
    if (probe) tables.push(printProbes(probe));
    return out;
  };
  const mixOut = process.env.BENCH_MIX === '0' ? null : await runMix();
  // A failed evaluation still leaves the mix's results written (and the run fails).
  const evalOut =
    process.env.BENCH_EVAL === '0'
      ? null
      : await runEval({ ctx, projectId: project.id, providerAccountId: acct.id, env, priority: PRIORITY }).catch((err: unknown) => {
          failed = true;
          console.error(err);
          return null;
        });
  const out = {
    ...(mixOut ?? { date: new Date().toISOString(), node: process.version, git: gitInfo(), machine: { ...machine, loadavg_at_end: loadavg().map((v) => round(v)) } }),
    eval: evalOut?.json ?? null,
  };
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(OUT, `${JSON.stringify(out, null, 2)}\n`);
  for (const t of tables) console.log(t);
  if (evalOut) console.log(evalOut.table);
  console.log(`\nwrote ${OUT}`);
} catch (err) {
  failed = true;
  console.error(err);
} finally {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  const keys = await ctx.redis.keys(`${redisPrefix}*`).catch(() => [] as string[]);
  if (keys.length) await ctx.redis.del(...keys).catch(() => {});
  await closeContext(ctx);
  await dropDatabase(config.DATABASE_URL).catch(() => {});
}
process.exit(failed ? 1 : 0);

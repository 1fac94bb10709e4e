import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { Test } from 'tap';
import { loadConfig } from '../../src/config/env.js';
import { closeContext, createContext } from '../../src/context.js';
import { dropDatabase } from '../../src/shared/sql.js';
import type { AppContext } from '../../src/shared/app-context.js';
import { testKeyring } from '../helpers/harness.js';

// The console tests drive Debian's chromium (playwright-core) against the real service in its
// own process, built from this tree (console included). Screenshots go to test-artifacts/console.

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const ARTIFACTS = join(root, 'test-artifacts', 'console');
const PG_BASE = process.env.TEST_DATABASE_BASE ?? 'postgres://postgres@127.0.0.1:5432';
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const PASSWORD = 'correct horse battery staple';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export interface Service {
  baseUrl: string;
  /** The service's stdout (its JSON log), line by line. */
  logs: string[];
  /** A context on the service's database (operator work a person cannot do from the console: wallet credit). */
  ctx: AppContext;
  waitForLog: (test: (line: string) => boolean, timeoutMs?: number) => Promise<string>;
  close: () => Promise<void>;
}

let built = false;
/** Builds the console once per test process, so the pages under test are this tree's. */
export function buildConsole(): void {
  if (built) return;
  execFileSync(process.execPath, [join(root, 'console', 'build.mjs')], { stdio: 'pipe' });
  built = true;
}

export async function startService(env: Record<string, string> = {}): Promise<Service> {
  buildConsole();
  const dbName = `voice_console_${process.pid}_${randomBytes(4).toString('hex')}`;
  const [port, mediaPort] = [await freePort(), await freePort()];
  const redisPrefix = `vc:test:${dbName}:`;
  const serviceEnv = {
    DATABASE_URL: `${PG_BASE}/${dbName}`,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    HOST: '127.0.0.1',
    PORT: String(port),
    MEDIA_PORT: String(mediaPort),
    WORKER_HTTP_PORT: '0',
    ALLOW_PRIVATE_URLS: '1',
    MEDIA_PIPELINE: 'agent',
    TEST_REDIS_PREFIX: redisPrefix,
    ...env,
  };
  const child: ChildProcess = spawn(process.execPath, ['--import=tsx', join(root, 'test', 'console', 'fixtures', 'service.ts')], {
    cwd: root,
    env: { ...process.env, ...serviceEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  const waiters: { test: (l: string) => boolean; resolve: (l: string) => void }[] = [];
  let buf = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buf += chunk.toString();
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      logs.push(line);
      for (const w of [...waiters]) if (w.test(line)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const waitForLog = (test: (l: string) => boolean, timeoutMs = 30_000) =>
    new Promise<string>((resolve, reject) => {
      const found = logs.find(test);
      if (found) return resolve(found);
      const timer = setTimeout(() => reject(new Error(`log line not seen in ${timeoutMs} ms; stderr: ${stderr.slice(-2000)}`)), timeoutMs);
      waiters.push({ test, resolve: (l) => (clearTimeout(timer), resolve(l)) });
    });
  const exited = new Promise<number | null>((r) => child.once('exit', r));
  await Promise.race([
    waitForLog((l) => l.includes('"ready":true'), 60_000),
    exited.then((code) => {
      throw new Error(`the service exited (${code}): ${stderr.slice(-3000)}`);
    }),
  ]);
  const config = loadConfig({ ...serviceEnv, LOG_LEVEL: 'silent' });
  const ctx = await createContext(config, { keyring: testKeyring(), redisPrefix }, 'existing');
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    logs,
    ctx,
    waitForLog,
    close: async () => {
      await closeContext(ctx);
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
      const r = new Redis(serviceEnv.REDIS_URL);
      const keys = await r.keys(`${redisPrefix}*`);
      if (keys.length) await r.del(...keys);
      await r.quit();
      await dropDatabase(serviceEnv.DATABASE_URL);
    },
  };
}

export const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];

/** Chromium with a fake microphone that plays `wav` (looped) when given. */
export async function launchBrowser(wav?: string): Promise<Browser> {
  const media = wav
    ? ['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-audio-capture=${wav}`, '--autoplay-policy=no-user-gesture-required']
    : [];
  return chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_FLAGS, ...media] });
}

export interface PageProblems {
  /** Console errors and CSP violations the page reported. */
  errors: string[];
}

/** A page in a fresh context (no shared storage); CSP violations and page errors are collected. */
export async function openPage(browser: Browser, width = 1280): Promise<{ page: Page; problems: PageProblems }> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  const problems: PageProblems = { errors: [] };
  page.on('pageerror', (e) => problems.errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused/.test(m.text())) problems.errors.push(m.text());
  });
  return { page, problems };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core on the page as it is (evaluated through the debugger protocol, not a script tag the CSP would refuse). */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  const has = await page.evaluate('typeof window.axe !== "undefined"');
  if (!has) await page.evaluate(AXE);
  const result = (await page.evaluate('window.axe.run(document, { resultTypes: ["violations"] })')) as { violations: AxeViolation[] };
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** A screenshot of the page as it is, and no serious or critical axe-core violations. */
export async function checkPage(t: Test, page: Page, name: string): Promise<void> {
  await screenshot(page, name);
  t.same(await axeViolations(page), [], `${name}: no serious or critical accessibility violations`);
}

/** The page fits a 375 px wide screen without sideways scrolling of the page itself. */
export async function fitsNarrow(t: Test, page: Page, name: string): Promise<void> {
  await page.setViewportSize({ width: 375, height: 800 });
  const width = (await page.evaluate('document.documentElement.scrollWidth')) as number;
  // What sticks out, when something does (elements inside a scrolling table are expected to).
  const wide = width <= 375 ? [] : ((await page.evaluate(`[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > 376 && !e.closest('.table-wrap')).slice(0, 5).map((e) => e.tagName + '.' + e.className)`)) as string[]);
  t.ok(width <= 375, `${name} at 375 px: page width ${width}`, { wide });
  await screenshot(page, `${name}-375`);
  await page.setViewportSize({ width: 1280, height: 900 });
}

const isMail = (l: string) => l.includes('mail for account');

/** How many mails the development transport has logged so far (to find the next one). */
export function mailCount(service: Service): number {
  return service.logs.filter(isMail).length;
}

/** The verification link of the next mail the development transport logs after `before` mails. */
export async function verificationLink(service: Service, before: number): Promise<string> {
  await service.waitForLog(() => mailCount(service) > before);
  const line = service.logs.filter(isMail)[before];
  const m = /(https?:\/\/[^\s"\\]+verify-email\?token=[A-Za-z0-9_-]+)/.exec(line);
  if (!m) throw new Error(`no link in ${line}`);
  return m[1];
}

/** One JSON request to the service as a console session (what another tab of the person would do). */
export async function consoleCall(service: Service, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${service.baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** A verified local provider account and an active agent on it, through the console door's JSON routes; the agent's id. */
export async function localAgent(s: Service, token: string, projectId: string, name: string): Promise<string> {
  const p = `/console/v2/projects/${projectId}`;
  const account = await consoleCall(s, token, 'POST', `${p}/provider-accounts`, { provider: 'local', label: `Local ${name}` });
  const accountId = account.body.id as string;
  await consoleCall(s, token, 'POST', `${p}/provider-accounts/${accountId}/verify`);
  const agent = await consoleCall(s, token, 'POST', `${p}/agents`, {
    name,
    prompt: 'Answer briefly.',
    pipeline_mode: 'cascade',
    language: 'en-US',
    pipeline_config: {
      stt: { account_id: accountId, model: 'pocketsphinx-en-us' },
      llm: { account_id: accountId, model: 'echo' },
      tts: { account_id: accountId, model: 'espeak-ng', voice: 'en-us' },
    },
  });
  if (agent.status !== 201) throw new Error(`agent: ${agent.status} ${JSON.stringify(agent.body)}`);
  return agent.body.agent.id as string;
}

async function post(service: Service, path: string, body: unknown, token?: string): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${service.baseUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

/** A verified account with one project, made through the console door's JSON routes. */
export async function accountWithProject(service: Service, projectName = 'Test project'): Promise<{ email: string; projectId: string; token: string }> {
  const email = `console-${randomBytes(5).toString('hex')}@example.com`;
  const before = mailCount(service);
  await post(service, '/console/auth/signup', { email, password: PASSWORD });
  const link = await verificationLink(service, before);
  await post(service, '/console/auth/verify-email', { token: new URL(link).searchParams.get('token') });
  const pair = await post(service, '/console/auth/login', { email, password: PASSWORD });
  const project = await post(service, '/console/v2/projects', { name: projectName }, pair.access_token as string);
  return { email, projectId: project.id as string, token: pair.access_token as string };
}

/** Logs in through the login page and waits for the projects page. */
export async function logIn(page: Page, service: Service, email: string, next = ''): Promise<void> {
  await page.goto(`${service.baseUrl}/login${next ? `?next=${encodeURIComponent(next)}` : ''}`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL((u) => !u.pathname.startsWith('/login'));
}

import t from 'tap';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/env.js';
import { dockerStages, read, ROOT, stageEnv } from './deploy-files.js';

// The Dockerfile and .dockerignore, read (no Docker on the machines that run the tests): two
// stages with the toolchain only in the first, a non-root runtime user with a writable DATA_DIR,
// a HEALTHCHECK on /readyz, and a build context that keeps out what must not go in.

const stages = dockerStages();
const [build, runtime] = [stages[0], stages.at(-1)!];
const instr = (stage: typeof build, name: string) => stage.lines.filter((l) => new RegExp(`^${name}\\s`, 'i').test(l));

t.test('multi-stage: the toolchain only in the build stage', async (t) => {
  t.equal(stages.length, 2);
  const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
  t.equal(engines, '20.x');
  t.match(build.from, /^node:20-bookworm$/, 'build: full image with g++, make, python3');
  t.match(runtime.from, /^node:20-bookworm-slim$/, 'runtime: slim image of the same Debian');
  t.ok(instr(build, 'RUN').some((l) => /npm ci/.test(l) && /npm prune --omit=dev/.test(l)), 'build: npm ci, then dev dependencies pruned');
  const installs = instr(runtime, 'RUN').join(' ');
  for (const tool of ['g++', 'gcc', 'make', 'python3', 'build-essential', 'node-gyp', 'curl']) t.notMatch(installs, new RegExp(`\\b${tool.replace('+', '\\+')}\\b`), `runtime installs no ${tool}`);
  const copies = instr(runtime, 'COPY');
  t.ok(copies.filter((l) => /--from=build/.test(l)).length >= 4, 'runtime copies the build output');
  t.notOk(copies.some((l) => /--from=build\s+\/app\/(src|native)\s/.test(l) || /\s(src|native)\s+\.\/(src|native)$/.test(l)), 'no TypeScript or C++ sources (only migrations)');
  t.ok(copies.some((l) => /\/app\/src\/db\/migrations\s+\.\/src\/db\/migrations/.test(l)), 'the migrations (read at start)');
  const pkg = JSON.parse(read('package.json')) as { main: string };
  t.ok(copies.some((l) => /\/app\/dist\s+\.\/dist/.test(l)) && pkg.main.startsWith('dist/'), `dist/ (package main ${pkg.main})`);
});

t.test('non-root user, writable data directory, production settings', async (t) => {
  const env = stageEnv(runtime);
  t.same(instr(runtime, 'USER'), ['USER node']);
  const userAt = runtime.lines.findIndex((l) => /^USER\s/.test(l));
  t.ok(runtime.lines.slice(userAt).every((l) => !/^(RUN|COPY)\s/.test(l)), 'nothing runs or is copied as root after USER');
  t.equal(env.DATA_DIR, '/app/.data');
  t.ok(instr(runtime, 'RUN').some((l) => l.includes(`mkdir -p ${env.DATA_DIR}`) && l.includes(`chown node:node ${env.DATA_DIR}`)), 'DATA_DIR exists and belongs to the runtime user');
  t.notOk(instr(runtime, 'COPY').some((l) => /--chown/.test(l)), 'the code stays root-owned (read-only to the runtime user)');
  t.equal(env.NODE_ENV, 'production');
  t.equal(env.HOST, '0.0.0.0');
  t.same([env.PORT, env.MEDIA_PORT, env.WORKER_HTTP_PORT], ['8080', '8081', '8082']);
  t.same(instr(runtime, 'EXPOSE'), ['EXPOSE 8080 8081 8082 9464']);
  t.equal(env.METRICS_HOST, '0.0.0.0', 'metrics reachable by a scraper on the container network');
  t.same(instr(runtime, 'ENTRYPOINT'), ['ENTRYPOINT ["/usr/bin/tini", "--"]'], 'tini forwards SIGTERM (drain)');
  t.same(instr(runtime, 'CMD'), ['CMD ["node", "dist/src/main.js"]']);
  // What the image's own settings do at start: both refusals are clear.
  t.throws(() => loadConfig(env), /HOST=0\.0\.0\.0 binds every interface.*PUBLIC_BASE_URL and PUBLIC_MEDIA_URL/);
  t.throws(() => loadConfig({ ...env, PUBLIC_BASE_URL: 'https://v.example.com', PUBLIC_MEDIA_URL: 'wss://v.example.com' }), /KEYRING is required when NODE_ENV=production/);
});

t.test('HEALTHCHECK: /readyz with Node, no curl', async (t) => {
  const [healthcheck] = instr(runtime, 'HEALTHCHECK');
  t.match(healthcheck, /CMD \["node", "\/app\/healthcheck\.mjs"\]$/);
  t.match(healthcheck, /--interval=\d+s/);
  t.match(healthcheck, /--start-period=\d+s/);
  t.ok(instr(runtime, 'COPY').includes('COPY deploy/healthcheck.mjs ./healthcheck.mjs'));
  const script = read('deploy/healthcheck.mjs');
  t.match(script, /\/readyz/);
  t.match(script, /fetch\(/);
});

/** .dockerignore as Docker reads it: patterns from the context root, `!` re-includes, the last match wins. */
function ignored(path: string, rules: string[]): boolean {
  const toRegex = (p: string) => new RegExp(`^${p.replace(/^\//, '').replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*\*/g, '\u0000').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]').replace(/\u0000/g, '.*')}(/.*)?$`);
  let out = false;
  for (const rule of rules) {
    const negate = rule.startsWith('!');
    if (toRegex(negate ? rule.slice(1) : rule).test(path)) out = !negate;
  }
  return out;
}

t.test('.dockerignore keeps out build outputs, dependencies, data, tests and secrets', async (t) => {
  const rules = read('.dockerignore')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  for (const p of ['node_modules', 'node_modules/ws/index.js', 'build/Release/vc_native.node', 'dist/src/main.js', '.data/keyring.json', '.git/HEAD', 'bench/results/media.json', 'test/deploy/k8s.test.ts', '.tap/processinfo/x.json', 'coverage/lcov.info', '.env', '.env.production', 'server.log', 'deploy/tls/privkey.pem', 'deploy/.env', 'native/fuzz/out/crash-1']) {
    t.ok(ignored(p, rules), `${p} stays out`);
  }
  // Everything the Dockerfile copies from the context is in it.
  const sources = stages
    .flatMap((s) => instr(s, 'COPY'))
    .filter((l) => !/--from=/.test(l))
    .flatMap((l) => l.replace(/^COPY\s+/, '').split(/\s+/).filter((w) => !w.startsWith('--')).slice(0, -1));
  t.ok(sources.length >= 7, `context sources: ${sources.join(' ')}`);
  for (const source of sources) {
    t.ok(existsSync(join(ROOT, source)), `${source} exists`);
    t.notOk(ignored(source, rules), `${source} is in the build context`);
  }
  for (const p of ['src/main.ts', 'native/src/core/vad.cc', 'src/db/migrations/0001_identity.sql']) t.notOk(ignored(p, rules), `${p} is in the build context`);
});

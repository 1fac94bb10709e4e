// The layers of src/, top to bottom: a folder may import only folders BELOW it (and itself).
// docs/architecture.md draws the same list; test/architecture/layers.test.ts enforces it.
const LAYERS = [
  ['main.ts', 'context.ts', 'roles', 'cli', 'bootstrap'], // entry: wiring, the admin CLI, first-run local services
  ['control'], // HTTP: Fastify routes of both doors
  ['conversation'], // the engine, injected into media by roles/media.ts
  ['media'], // the media socket, transports, call registry
  ['campaigns'], // batch campaigns: each row an outbound call through telephony's admission
  ['telephony'], // outbound/inbound calls, dialling, carrier callbacks
  ['health'], // readiness checks every role answers
  ['sessions'], // admission, activation, settlement, slots
  ['insights'],
  ['agents'],
  ['carriers'],
  ['transcripts'],
  ['tools'],
  ['webhooks'],
  ['providers'],
  ['queues'], // the worker plane: queue names, job schemas, producer and worker helpers
  ['db'], // every query (db/repos) and migrations
  ['audio'], // the only loader of the C++ addon
  ['contract'], // API shapes, events, control frames, money, scopes
  ['metrics'], // the process's Prometheus registry and its metrics (prom-client only)
  ['config', 'shared'], // environment, AppContext, clients, errors, crypto, logging
];

const pathOf = (names) => `^src/(${names.map((n) => n.replace('.', '\\.')).join('|')})(/|$)`;

const layerRules = LAYERS.slice(1).map((layer, i) => ({
  name: `layer-${layer.join('-').replace('.ts', '')}`,
  severity: 'error',
  comment: `${layer.join(', ')} may not import a layer above it (${LAYERS.slice(0, i + 1).flat().join(', ')})`,
  from: { path: pathOf(layer) },
  to: { path: pathOf(LAYERS.slice(0, i + 1).flat()) },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {

  forbidden: [
    ...layerRules,
    {
      name: 'bootstrap-only-from-main',
      severity: 'error',
      comment: 'local services (first run) are started by the entry point only, before the context is built',
      from: { path: '^src/', pathNot: '^src/(main\\.ts|bootstrap/)' },
      to: { path: '^src/bootstrap/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'modules that import each other, directly or through others',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
    {
      name: 'src-not-to-tests',
      severity: 'error',
      comment: 'production code never imports tests, benchmarks or scripts',
      from: { path: '^src/' },
      to: { path: '^(test|bench|scripts)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
    moduleSystems: ['es6'],
  },
};

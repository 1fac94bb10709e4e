// Bundles the console with esbuild into dist/: hashed assets (served immutable) and an
// index.html that names them (served no-cache). Prints the first-load JavaScript size, gzipped.
// The test call uses the browser client (packages/browser, from its source): its two
// AudioWorklet modules become hashed same-origin assets too (script-src 'self' allows them),
// loaded only when a call starts, and the app learns their names through a define.
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const here = dirname(fileURLToPath(import.meta.url));
const browserClient = join(here, '..', 'packages', 'browser');
const out = join(here, 'dist');
const BUDGET_BYTES = 200 * 1024;

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'assets'), { recursive: true });

const worklets = await build({
  entryPoints: {
    'capture-worklet': join(browserClient, 'src/worklets/capture.ts'),
    'playback-worklet': join(browserClient, 'src/worklets/playback.ts'),
  },
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2020'],
  outdir: join(out, 'assets'),
  entryNames: '[name]-[hash]',
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
  absWorkingDir: here,
});
const workletOutputs = Object.keys(worklets.metafile.outputs);
const workletUrl = (name) => `/assets/${basename(workletOutputs.find((f) => basename(f).startsWith(`${name}-`)))}`;

const result = await build({
  entryPoints: { app: join(here, 'src/main.tsx'), styles: join(here, 'src/styles.css') },
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2020'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outdir: join(out, 'assets'),
  entryNames: '[name]-[hash]',
  chunkNames: 'chunk-[hash]',
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
  absWorkingDir: here,
  alias: { '@voice-agent/browser': join(browserClient, 'src/index.ts') },
  define: { __VOICE_WORKLETS__: JSON.stringify({ capture: workletUrl('capture-worklet'), playback: workletUrl('playback-worklet') }) },
});

const outputs = Object.keys(result.metafile.outputs);
const js = outputs.filter((f) => f.endsWith('.js'));
const css = outputs.filter((f) => f.endsWith('.css'));
const entry = (name, ext) => basename(outputs.find((f) => basename(f).startsWith(`${name}-`) && f.endsWith(ext)));

const html = readFileSync(join(here, 'index.html'), 'utf8')
  .replace('%APP%', `/assets/${entry('app', '.js')}`)
  .replace('%STYLES%', `/assets/${entry('styles', '.css')}`);
writeFileSync(join(out, 'index.html'), html);

// Metafile paths are relative to absWorkingDir.
const gz = (files) => files.reduce((n, f) => n + gzipSync(readFileSync(join(here, f))).length, 0);
const jsGzip = gz(js);
const cssGzip = gz(css);
const workletGzip = gz(workletOutputs);
console.log(
  `console: first-load JavaScript ${(jsGzip / 1024).toFixed(1)} KB gzipped (budget ${BUDGET_BYTES / 1024} KB), CSS ${(cssGzip / 1024).toFixed(1)} KB gzipped, ` +
    `call worklets ${(workletGzip / 1024).toFixed(1)} KB gzipped (loaded when a test call starts)`,
);
if (jsGzip > BUDGET_BYTES) {
  console.error('console: over the first-load JavaScript budget');
  process.exit(1);
}

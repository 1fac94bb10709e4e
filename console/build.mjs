// Bundles the console with esbuild into dist/: hashed assets (served immutable) and an
// index.html that names them (served no-cache). Prints the first-load JavaScript size, gzipped.
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, 'dist');
const BUDGET_BYTES = 200 * 1024;

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'assets'), { recursive: true });

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
console.log(`console: first-load JavaScript ${(jsGzip / 1024).toFixed(1)} KB gzipped (budget ${BUDGET_BYTES / 1024} KB), CSS ${(cssGzip / 1024).toFixed(1)} KB gzipped`);
if (jsGzip > BUDGET_BYTES) {
  console.error('console: over the first-load JavaScript budget');
  process.exit(1);
}

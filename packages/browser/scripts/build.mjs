// Builds the ESM bundle, the /call page's script and the two AudioWorklet modules with esbuild, then the type declarations.
// The worklets are separate files (not blob URLs) so pages with a strict CSP can load them.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const common = { bundle: true, format: 'esm', target: 'es2022', sourcemap: true, absWorkingDir: root, logLevel: 'warning' };
await build({ ...common, entryPoints: { 'voice-browser': 'src/index.ts' }, outdir: 'dist' });
await build({ ...common, entryPoints: { 'call-page': 'page/call-page.ts' }, outdir: 'dist' });
copyFileSync(`${root}/page/call-page.css`, `${root}/dist/call-page.css`);
await build({ ...common, entryPoints: { 'capture-worklet': 'src/worklets/capture.ts', 'playback-worklet': 'src/worklets/playback.ts' }, outdir: 'dist' });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.check.json'], { cwd: root, stdio: 'inherit' });
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: root, stdio: 'inherit' });

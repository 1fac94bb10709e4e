import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

// Browser end-to-end support: Debian's chromium with a fake microphone that plays a WAV made by
// espeak-ng, a folder for screenshots, and a page of the test's own on another origin.

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'browser');
const WORK = join(process.cwd(), '.data', 'browser');

function speechWav(name: string, text: string): string {
  const raw = join(WORK, `${name}.raw.wav`);
  const out = join(WORK, `${name}.wav`);
  execFileSync('espeak-ng', ['-v', 'en-us', '-s', '150', '-w', raw, text]);
  execFileSync('sox', ['-R', raw, '-r', '48000', '-c', '1', '-b', '16', out]);
  return out;
}

function silenceWav(name: string, seconds: number): string {
  const out = join(WORK, `${name}.wav`);
  execFileSync('sox', ['-R', '-n', '-r', '48000', '-c', '1', '-b', '16', out, 'trim', '0', String(seconds)]);
  return out;
}

export function wavSeconds(path: string): number {
  return Number(execFileSync('soxi', ['-D', path], { encoding: 'utf8' }).trim());
}

/**
 * The caller's microphone: `leadSeconds` of silence, the speech, then a long silence (Chromium
 * loops the file, so it is longer than any test waits).
 */
export function callerWav(opts: { leadSeconds: number; speech: string }): { path: string; speechStarts: number; speechEnds: number } {
  mkdirSync(WORK, { recursive: true });
  mkdirSync(ARTIFACTS, { recursive: true });
  const lead = silenceWav('lead', opts.leadSeconds);
  const speech = speechWav('speech', opts.speech);
  const tail = silenceWav('tail', 90);
  const path = join(WORK, 'caller.wav');
  execFileSync('sox', ['-R', lead, speech, tail, path]);
  return { path, speechStarts: opts.leadSeconds, speechEnds: opts.leadSeconds + wavSeconds(speech) };
}

export async function launchChromium(wav: string): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-audio-capture=${wav}`,
      '--autoplay-policy=no-user-gesture-required',
    ],
  });
}

/** A page on another origin (the test's own server) that calls the service with the browser client. */
export async function startForeignSite(serviceUrl: string): Promise<{ origin: string; close: () => Promise<void> }> {
  const dist = join(process.cwd(), 'packages', 'browser', 'dist');
  const page = `<!doctype html><html><body><p id="out">starting</p><script type="module">
import { startCall } from '/voice-browser.js';
const q = new URLSearchParams(location.search);
window.result = (async () => {
  try {
    const call = await startCall({ publishableKey: q.get('key'), agentId: q.get('agent'), baseUrl: ${JSON.stringify(serviceUrl)} });
    const sessionId = call.sessionId;
    call.hangUp();
    const end = await call.ended;
    return { ok: true, sessionId, end };
  } catch (err) {
    return { ok: false, error: String(err && err.message || err) };
  }
})();
window.result.then((r) => { document.getElementById('out').textContent = JSON.stringify(r); });
</script></body></html>`;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(page);
    if (/^\/(voice-browser|capture-worklet|playback-worklet)\.js$/.test(path)) return res.writeHead(200, { 'content-type': 'text/javascript' }).end(readFileSync(join(dist, path.slice(1))));
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  // `localhost` and `127.0.0.1` are different origins: the service is reached as 127.0.0.1.
  return { origin: `http://localhost:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';

// The media role refuses to start, saying why, when uWebSockets.js loaded its JavaScript
// fallback (what happens on a Node without a binary in the alias); on Node 20 it starts.
const run = promisify(execFile);
const script = `
  import { startMediaNode } from './src/roles/media.ts';
  import { uwsFallbackReason } from './src/media/uws-native.ts';
  const reason = uwsFallbackReason();
  try {
    await startMediaNode({}, { port: 0, host: '127.0.0.1', pipeline: 'echo' });
  } catch (err) {
    console.log(JSON.stringify({ reason, error: err.message }));
    process.exit(0);
  }
  console.log(JSON.stringify({ reason, error: null }));
  process.exit(0);
`;

async function probe(env: Record<string, string>): Promise<{ reason: string | null; error: string | null }> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env: { ...process.env, ...env }, cwd: new URL('../..', import.meta.url).pathname });
  return JSON.parse(stdout.trim().split('\n').pop()!) as { reason: string | null; error: string | null };
}

t.test('the JavaScript fallback of uWebSockets.js stops the media role with the reason', async (t) => {
  const r = await probe({ UWS_USE_FALLBACK: '1' });
  t.match(r.reason, /JavaScript fallback/);
  t.match(r.error, /^the media role cannot start: UWS_USE_FALLBACK is set/);
});

t.test('the native binary is found on this Node', async (t) => {
  const r = await probe({});
  t.equal(r.reason, null);
  // It gets past the runtime check and fails later on the empty context it was given.
  t.notMatch(r.error ?? '', /cannot start/);
});

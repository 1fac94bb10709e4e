import { createRequire } from 'node:module';
import 'uWebSockets.js';

// uWebSockets.js (through the npm alias in package.json) ships binaries for Node 16, 18 and 20
// only; on any other runtime it silently falls back to a JavaScript shim on which the media socket
// never opens. The fallback is a module of its own, so its presence in the module cache tells.
const require = createRequire(import.meta.url);

/** Why the media socket cannot run here, or null when uWebSockets.js loaded its native binary. */
export function uwsFallbackReason(): string | null {
  let fallback: string;
  try {
    fallback = require.resolve('uWebSockets.js/dist/index');
  } catch {
    return null; // a build without the shim cannot have fallen back to it
  }
  if (!require.cache[fallback]) return null;
  if (/^(1|true)$/i.test(process.env.UWS_USE_FALLBACK ?? '')) return 'UWS_USE_FALLBACK is set: uWebSockets.js loaded its JavaScript fallback, on which the media socket does not work';
  return (
    `uWebSockets.js has no native binary for Node ${process.versions.node} (ABI ${process.versions.modules}, ` +
    `${process.platform}-${process.arch}) and loaded its JavaScript fallback, on which the media socket does not work; ` +
    'run the media role on Node 20 (see README, "Runtime")'
  );
}

// Where the browser client's AudioWorklet modules are served: hashed same-origin assets that
// build.mjs emits next to the app and names here through a define.

declare const __VOICE_WORKLETS__: { capture: string; playback: string };

export const WORKLET_URLS: { capture: string; playback: string } = __VOICE_WORKLETS__;

import type { AppContext } from '../app-context.js';

/** The media role: the uWebSockets.js socket and the conversation engine (voice sessions issue). */
export async function start(ctx: AppContext): Promise<() => Promise<void>> {
  ctx.log.info('media role: no media socket yet');
  return async () => {};
}

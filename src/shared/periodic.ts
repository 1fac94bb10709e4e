/**
 * Runs `task` at once, then `intervalMs` after each run ends (never two runs at a time), until
 * the returned stop function is called; stopping waits for a run in progress. A failed run is
 * handed to `failed` and the loop goes on. `unref`: the loop alone does not keep the process up.
 */
export function runPeriodically(
  task: () => Promise<void>,
  intervalMs: number,
  failed: (err: unknown) => void,
  opts: { unref?: boolean } = {},
): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const schedule = (ms: number) => {
    timer = setTimeout(tick, ms);
    if (opts.unref) timer.unref();
  };
  const tick = () => {
    running = task()
      .catch(failed)
      .finally(() => {
        if (!stopped) schedule(intervalMs);
      });
  };
  schedule(0);
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}

// Loaded into a benchmark server with `--import` (session-memory.ts): answers `{cmd: 'memory'}`
// with the process's memory after a full GC, split by owner, and optionally writes a heap
// snapshot. It adds a listener beside serveBenchmark's, which ignores this command.
import { readFileSync } from 'node:fs';
import { getHeapSpaceStatistics, getHeapStatistics, writeHeapSnapshot } from 'node:v8';

export interface MemorySample {
  /** Resident set size, and its anonymous part (heaps, V8 pages, malloc arenas) from /proc. */
  rss: number;
  rssAnon: number;
  /** V8's heap: bytes of live objects and pages it holds resident. */
  heapUsed: number;
  heapPhysical: number;
  /** Of heapPhysical: the young generation (semi-spaces V8 grows under allocation, whatever holds them). */
  newSpacePhysical: number;
  /** Memory V8 knows about outside its heap (ArrayBuffer backing stores and their like). */
  external: number;
  arrayBuffers: number;
  /** V8's own malloc'd bookkeeping. */
  v8Malloced: number;
  snapshot?: string;
}

export type ProbeMessage = { cmd: 'memory'; snapshot?: string };

const collect = (globalThis as { gc?: () => void }).gc;

function rssAnonBytes(): number {
  const m = /RssAnon:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

const tick = () => new Promise((r) => setImmediate(r));

async function sample(snapshot: string | undefined): Promise<MemorySample> {
  if (!collect) throw new Error('memory-probe needs --expose-gc');
  // Node-API finalizers (native objects, and the typed arrays they hold) run after the GC that
  // found them dead, from the event loop: only a later GC frees what they released.
  for (let i = 0; i < 3; i++) {
    collect();
    await tick();
  }
  const mu = process.memoryUsage();
  const hs = getHeapStatistics();
  const out: MemorySample = {
    rss: mu.rss,
    rssAnon: rssAnonBytes(),
    heapUsed: mu.heapUsed,
    heapPhysical: hs.total_physical_size,
    newSpacePhysical: getHeapSpaceStatistics().find((x) => x.space_name === 'new_space')?.physical_space_size ?? 0,
    external: mu.external,
    arrayBuffers: mu.arrayBuffers,
    v8Malloced: hs.malloced_memory,
  };
  if (snapshot) out.snapshot = writeHeapSnapshot(snapshot);
  return out;
}

process.on('message', (m: ProbeMessage) => {
  if (m?.cmd !== 'memory') return;
  void sample(m.snapshot).then((s) => process.send!({ type: 'memory', sample: s }));
});

import t from 'tap';
import { readFileSync } from 'node:fs';
import { startMetricsServer } from '../../src/metrics/server.js';
import '../../src/metrics/api.js';
import '../../src/metrics/media.js';
import '../../src/metrics/providers.js';
import '../../src/metrics/worker.js';
import { scrape } from './scrape.js';

// deploy/grafana-dashboard.json queries only metrics the service exports, under their names.

const dashboard = JSON.parse(readFileSync(new URL('../../deploy/grafana-dashboard.json', import.meta.url), 'utf8'));
type Panel = { type: string; title: string; targets?: { expr: string }[] };

t.test('every metric the dashboard queries is exported with that name', async (t) => {
  const metrics = await startMetricsServer(0, '127.0.0.1');
  t.teardown(metrics.close);
  const text = await scrape(metrics.port);
  const families = new Set([...text.matchAll(/^# TYPE (\S+) (\w+)$/gm)].map((m) => m[1]));
  const queried = new Set<string>();
  for (const p of dashboard.panels as Panel[]) {
    if (p.type === 'row') continue;
    t.ok(p.targets?.length, `${p.title} has queries`);
    for (const { expr } of p.targets ?? []) {
      for (const [name] of expr.matchAll(/\b(?:voice|nodejs|process)_[a-z0-9_]+/g)) queried.add(name.replace(/_(bucket|sum|count)$/, ''));
    }
  }
  t.ok(queried.size >= 15, `${queried.size} metrics queried`);
  for (const name of queried) t.ok(families.has(name), `${name} is exported`);
  // The other direction: the service's own families all have a panel, except the per-call seconds total.
  for (const name of families) if (name.startsWith('voice_') && name !== 'voice_media_call_seconds_total') t.ok(queried.has(name), `${name} is on the dashboard`);
});

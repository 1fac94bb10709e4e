import type { Metric } from 'prom-client';
import { registry } from './registry.js';

interface Sample {
  metricName: string;
  labels: Record<string, string | number>;
  value: number;
}

/**
 * A histogram for hot paths (every output frame, every pacer run): `observe` is a few
 * comparisons and typed-array increments, no label hashing or object allocation. It has no
 * labels; the registry reads it as a Prometheus histogram at scrape time.
 */
export class FastHistogram {
  readonly type = 'histogram';
  private readonly counts: Float64Array;
  private sum = 0;
  private count = 0;

  /** `boundsMs` ascending, in milliseconds; exported in seconds (`le` in seconds, `_sum` in seconds). */
  constructor(readonly name: string, readonly help: string, private readonly boundsMs: readonly number[]) {
    this.counts = new Float64Array(boundsMs.length);
    registry.registerMetric(this as unknown as Metric);
  }

  observe(ms: number): void {
    this.sum += ms;
    this.count++;
    const b = this.boundsMs;
    for (let i = 0; i < b.length; i++) {
      if (ms <= b[i]) {
        this.counts[i]++;
        return;
      }
    }
  }

  /** What prom-client's registry reads from a histogram at scrape time. */
  get(): { name: string; help: string; type: string; aggregator: string; values: Sample[] } {
    const values: Sample[] = [];
    let cumulative = 0;
    for (let i = 0; i < this.boundsMs.length; i++) {
      cumulative += this.counts[i];
      values.push({ metricName: `${this.name}_bucket`, labels: { le: this.boundsMs[i] / 1000 }, value: cumulative });
    }
    values.push({ metricName: `${this.name}_bucket`, labels: { le: '+Inf' }, value: this.count });
    values.push({ metricName: `${this.name}_sum`, labels: {}, value: this.sum / 1000 });
    values.push({ metricName: `${this.name}_count`, labels: {}, value: this.count });
    return { name: this.name, help: this.help, type: this.type, values, aggregator: 'sum' };
  }
}

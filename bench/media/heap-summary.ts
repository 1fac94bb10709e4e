// Heap snapshots (v8.writeHeapSnapshot) summed by what each node is: its type and, for objects,
// closures and native nodes, its constructor or name. The difference of two summaries says
// which kinds of objects a change in the process (N more sessions) added, and how many bytes.
import { readFileSync } from 'node:fs';

export interface KindTotal {
  count: number;
  /** Sum of the nodes' own sizes (not what they retain). */
  selfBytes: number;
}

/** Types whose node names are contents (string text, numbers), not kinds: summed by type alone. */
const BY_TYPE_ONLY = new Set(['string', 'concatenated string', 'sliced string', 'number', 'heap number', 'hidden', 'code', 'bigint']);

export function summarizeHeapSnapshot(file: string): Map<string, KindTotal> {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snap.snapshot.meta.node_fields;
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const types = snap.snapshot.meta.node_types[0];
  const totals = new Map<string, KindTotal>();
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + typeAt]];
    const key = BY_TYPE_ONLY.has(type) ? `(${type})` : `${type} ${snap.strings[snap.nodes[i + nameAt]]}`;
    const t = totals.get(key) ?? { count: 0, selfBytes: 0 };
    t.count++;
    t.selfBytes += snap.nodes[i + sizeAt];
    totals.set(key, t);
  }
  return totals;
}

/** `after − before` per kind, largest growth first. */
export function diffSummaries(before: Map<string, KindTotal>, after: Map<string, KindTotal>): { kind: string; count: number; selfBytes: number }[] {
  const kinds = new Set([...before.keys(), ...after.keys()]);
  return [...kinds]
    .map((kind) => {
      const a = after.get(kind) ?? { count: 0, selfBytes: 0 };
      const b = before.get(kind) ?? { count: 0, selfBytes: 0 };
      return { kind, count: a.count - b.count, selfBytes: a.selfBytes - b.selfBytes };
    })
    .sort((x, y) => y.selfBytes - x.selfBytes);
}

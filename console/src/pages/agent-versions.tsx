import { useState } from 'preact/hooks';
import { api, projectPath } from '../api';
import type { Agent } from '../types';
import { ErrorNote, Loading, useLoad } from '../ui';

// Any two versions of an agent side by side: only the fields that differ.

const IGNORED = new Set(['version', 'updated_at', 'created_at']);

export function diffFields(a: Agent, b: Agent): { field: string; from: string; to: string }[] {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => !IGNORED.has(k));
  const show = (v: unknown) => (v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v, null, 2));
  return keys.filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k])).map((k) => ({ field: k, from: show(a[k]), to: show(b[k]) }));
}

export function VersionDiff({ projectId, agentId, latest }: { projectId: string; agentId: string; latest: number }) {
  const [from, setFrom] = useState(Math.max(1, latest - 1));
  const [to, setTo] = useState(latest);
  const versions = Array.from({ length: latest }, (_, i) => latest - i);
  const pair = useLoad(
    () => Promise.all([from, to].map((v) => api<Agent>('GET', projectPath(projectId, `/agents/${agentId}/versions/${v}`)))),
    [projectId, agentId, from, to],
  );
  const pick = (label: string, value: number, set: (v: number) => void) => (
    <label>
      {label}{' '}
      <select value={value} onChange={(e) => set(Number((e.target as HTMLSelectElement).value))}>
        {versions.map((v) => (
          <option key={v} value={v}>
            version {v}
          </option>
        ))}
      </select>
    </label>
  );
  const diff = pair.data ? diffFields(pair.data[0], pair.data[1]) : [];
  return (
    <section aria-label="Compare versions">
      <div class="row">
        {pick('Compare', from, setFrom)}
        {pick('with', to, setTo)}
      </div>
      {pair.loading && <Loading what="versions" />}
      <ErrorNote error={pair.error} />
      {pair.data && diff.length === 0 && <p class="muted">No differences between version {from} and version {to}.</p>}
      {diff.length > 0 && (
        <div class="table-wrap">
          <table class="diff">
            <thead>
              <tr>
                <th scope="col">Field</th>
                <th scope="col">Version {from}</th>
                <th scope="col">Version {to}</th>
              </tr>
            </thead>
            <tbody>
              {diff.map((d) => (
                <tr key={d.field}>
                  <th scope="row">{d.field}</th>
                  <td>
                    <pre class="removed">{d.from}</pre>
                  </td>
                  <td>
                    <pre class="added">{d.to}</pre>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

import { useState } from 'preact/hooks';
import { api } from '../api';
import { navigate } from '../router';
import type { Project } from '../types';
import { Empty, ErrorNote, Loading, TextField, useLoad, useSubmit, when } from '../ui';

export function ProjectsPage() {
  const list = useLoad(() => api<Project[]>('GET', '/console/v2/projects?limit=200'), []);
  const [name, setName] = useState('');
  const { busy, error, fields, run } = useSubmit();
  return (
    <main>
      <h1>Projects</h1>
      <p class="muted">A project holds agents, keys, provider accounts, sessions and a wallet. Its limits are set by the operator.</p>
      {list.loading && !list.data && <Loading what="projects" />}
      <ErrorNote error={list.error} />
      {list.data && list.data.length === 0 && (
        <Empty>
          <p>No projects yet. Create your first project below, then add a provider account and an agent.</p>
        </Empty>
      )}
      {list.data && list.data.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="sr-only">Your projects</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">API requests / min</th>
                <th scope="col">Concurrent sessions</th>
                <th scope="col">Revision</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((p) => (
                <tr key={p.id}>
                  <td>
                    <a href={`/p/${p.id}/agents`}>{p.name}</a>
                  </td>
                  <td>{p.api_rpm}</td>
                  <td>{p.max_concurrent_sessions}</td>
                  <td>{p.revision}</td>
                  <td>{when(p.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2>New project</h2>
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          void run(async () => {
            const p = await api<Project>('POST', '/console/v2/projects', { name });
            setName('');
            navigate(`/p/${p.id}/agents`);
          });
        }}
      >
        <TextField label="Project name" name="name" value={name} onInput={setName} error={fields.name} required />
        <ErrorNote error={error} />
        <button type="submit" class="primary" disabled={busy}>
          Create project
        </button>
      </form>
    </main>
  );
}

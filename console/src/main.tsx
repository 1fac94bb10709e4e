import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api';
import { hasRefreshToken, isLoggedIn, onAuthChange, refresh } from './auth';
import { currentPath, match, navigate, useLocation } from './router';
import type { Project } from './types';
import { useLoad } from './ui';
import { LoginPage, logOut, SignupPage, VerifyPage } from './pages/account';
import { AgentPage, AgentsPage, NewAgentPage } from './pages/agents';
import { CampaignPage } from './pages/campaign';
import { CampaignsPage, NewCampaignPage } from './pages/campaigns';
import { KeysPage } from './pages/keys';
import { PhonePage } from './pages/phone';
import { ProjectsPage } from './pages/projects';
import { ProvidersPage } from './pages/providers';
import { SessionPage, SessionsPage } from './pages/sessions';
import { TestCallPage } from './pages/test-call';
import { WalletPage } from './pages/wallet';
import { WebhooksPage } from './pages/webhooks';

const PUBLIC = ['/login', '/signup', '/verify'];

const SECTIONS: [string, string][] = [
  ['agents', 'Agents'],
  ['test-call', 'Test call'],
  ['sessions', 'Sessions'],
  ['providers', 'Provider accounts'],
  ['keys', 'Keys'],
  ['webhooks', 'Webhooks'],
  ['wallet', 'Wallet'],
  ['phone', 'Phone'],
  ['campaigns', 'Campaigns'],
];

function ProjectNav({ projectId, path }: { projectId: string; path: string }) {
  const projects = useLoad(() => api<Project[]>('GET', '/console/v2/projects?limit=200'), []);
  const current = projects.data?.find((p) => p.id === projectId);
  return (
    <nav class="project-nav" aria-label="Project">
      <label class="switcher">
        <span class="sr-only">Project</span>
        <select
          value={projectId}
          onChange={(e) => {
            const id = (e.target as HTMLSelectElement).value;
            if (id === '') navigate('/projects');
            else navigate(path.replace(`/p/${projectId}`, `/p/${id}`).split('/').slice(0, 4).join('/'));
          }}
        >
          {!current && <option value={projectId}>this project</option>}
          {projects.data?.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
          <option value="">All projects…</option>
        </select>
      </label>
      {current && (
        <p class="limits muted" data-testid="limits">
          Limits: {current.api_rpm} API requests a minute, {current.max_concurrent_sessions} concurrent sessions.
        </p>
      )}
      <ul>
        {SECTIONS.map(([slug, label]) => {
          const href = `/p/${projectId}/${slug}`;
          const here = path === href || path.startsWith(`${href}/`);
          return (
            <li key={slug}>
              <a href={href} aria-current={here ? 'page' : undefined}>
                {label}
              </a>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

function Page({ path }: { path: string }) {
  let m: Record<string, string> | null;
  if (path === '/login') return <LoginPage />;
  if (path === '/signup') return <SignupPage />;
  if (path === '/verify') return <VerifyPage />;
  if (path === '/' || path === '/projects') return <ProjectsPage />;
  if ((m = match('/p/:pid/agents', path))) return <AgentsPage projectId={m.pid} />;
  if ((m = match('/p/:pid/agents/new', path))) return <NewAgentPage projectId={m.pid} />;
  if ((m = match('/p/:pid/agents/:aid', path))) return <AgentPage key={m.aid} projectId={m.pid} agentId={m.aid} />;
  if ((m = match('/p/:pid/test-call', path))) return <TestCallPage projectId={m.pid} />;
  if ((m = match('/p/:pid/sessions', path))) return <SessionsPage projectId={m.pid} />;
  if ((m = match('/p/:pid/sessions/:sid', path))) return <SessionPage key={m.sid} projectId={m.pid} sessionId={m.sid} />;
  if ((m = match('/p/:pid/providers', path))) return <ProvidersPage projectId={m.pid} />;
  if ((m = match('/p/:pid/keys', path))) return <KeysPage projectId={m.pid} />;
  if ((m = match('/p/:pid/webhooks', path))) return <WebhooksPage projectId={m.pid} />;
  if ((m = match('/p/:pid/wallet', path))) return <WalletPage projectId={m.pid} />;
  if ((m = match('/p/:pid/phone', path))) return <PhonePage projectId={m.pid} />;
  if ((m = match('/p/:pid/campaigns', path))) return <CampaignsPage projectId={m.pid} />;
  if ((m = match('/p/:pid/campaigns/new', path))) return <NewCampaignPage projectId={m.pid} />;
  if ((m = match('/p/:pid/campaigns/:cid', path))) return <CampaignPage key={m.cid} projectId={m.pid} campaignId={m.cid} />;
  return (
    <main>
      <h1>Page not found</h1>
      <p>
        <a href="/projects">Go to your projects</a>
      </p>
    </main>
  );
}

function App() {
  const { path } = useLocation();
  const [, setAuthTick] = useState(0);
  const [booting, setBooting] = useState(!isLoggedIn() && hasRefreshToken());
  useEffect(() => onAuthChange(() => setAuthTick((n) => n + 1)), []);
  useEffect(() => {
    // A reload keeps the tab's session: trade the stored refresh token for an access token.
    if (booting) void refresh().finally(() => setBooting(false));
  }, []);
  const isPublic = PUBLIC.includes(path);
  useEffect(() => {
    if (!booting && !isPublic && !isLoggedIn()) navigate(`/login?next=${encodeURIComponent(currentPath())}`, true);
  }, [booting, isPublic, path]);
  useEffect(() => {
    const h1 = document.querySelector('h1');
    document.title = `${h1?.textContent ?? 'Console'} · Voice agent console`;
  });
  if (booting) return <p class="muted">Loading…</p>;
  const pm = /^\/p\/([^/]+)/.exec(path);
  const project = pm ? { pid: decodeURIComponent(pm[1]) } : null;
  const loggedIn = isLoggedIn();
  return (
    <>
      <a class="skip" href="#content">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={loggedIn ? '/projects' : '/login'}>
          Voice agent console
        </a>
        {loggedIn && (
          <button type="button" class="link" onClick={() => void logOut()}>
            Log out
          </button>
        )}
      </header>
      <div class={project && loggedIn ? 'layout with-nav' : 'layout'}>
        {project && loggedIn && <ProjectNav projectId={project.pid} path={path} />}
        <div id="content" tabIndex={-1}>
          {isPublic || loggedIn ? <Page path={path} /> : null}
        </div>
      </div>
    </>
  );
}

render(<App />, document.getElementById('app')!);

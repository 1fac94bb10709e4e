import { useState } from 'preact/hooks';
import { api, projectPath, qs } from '../api';
import type { VoiceSession } from '../types';
import { Badge, Empty, ErrorNote, Loading, Pager, useLoad, usd, when } from '../ui';

interface Wallet {
  currency: string;
  balance_nano_usd: string;
  held_nano_usd: string;
  available_nano_usd: string;
}
interface LedgerEntry {
  id: string;
  kind: string;
  amount_nano_usd: string;
  session_id: string | null;
  created_at: string;
}

const LIMIT = 50;

/** The holds in place: sessions not yet settled (created or active) each hold their longest possible cost. */
function Holds({ projectId, held }: { projectId: string; held: string | undefined }) {
  const holds = useLoad(async () => {
    const path = (status: string) => projectPath(projectId, `/voice/sessions${qs({ status, limit: 200 })}`);
    const [active, created] = await Promise.all([api<VoiceSession[]>('GET', path('active')), api<VoiceSession[]>('GET', path('created'))]);
    return [...active, ...created];
  }, [projectId, held]);
  return (
    <section aria-labelledby="holds-h">
      <h2 id="holds-h">Holds</h2>
      <ErrorNote error={holds.error} />
      {holds.loading && !holds.data && <Loading what="holds" />}
      {holds.data?.length === 0 && (
        <Empty>
          <p>No holds: no call is waiting to connect or in progress.</p>
        </Empty>
      )}
      {holds.data && holds.data.length > 0 && (
        <div class="table-wrap">
          <table data-testid="holds">
            <thead>
              <tr>
                <th scope="col">Session</th>
                <th scope="col">Status</th>
                <th scope="col">Since</th>
                <th scope="col">Longest call</th>
                <th scope="col">Held</th>
              </tr>
            </thead>
            <tbody>
              {holds.data.map((s) => (
                <tr key={s.id}>
                  <td>
                    <a href={`/p/${projectId}/sessions/${s.id}`}>{s.id.slice(0, 8)}</a>
                  </td>
                  <td>
                    <Badge tone="warn">{s.status}</Badge>
                  </td>
                  <td>{when(s.created_at)}</td>
                  <td>{Math.ceil(s.max_duration_seconds / 60)} min</td>
                  <td>{usd(s.hold_nano_usd)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export function WalletPage({ projectId }: { projectId: string }) {
  const [offset, setOffset] = useState(0);
  const wallet = useLoad(() => api<Wallet>('GET', projectPath(projectId, '/wallet')), [projectId]);
  const ledger = useLoad(() => api<LedgerEntry[]>('GET', projectPath(projectId, `/wallet/ledger${qs({ limit: LIMIT, offset })}`)), [projectId, offset]);
  const w = wallet.data;
  return (
    <main>
      <h1>Wallet</h1>
      {wallet.loading && !w && <Loading what="the wallet" />}
      <ErrorNote error={wallet.error} />
      {w && (
        <dl class="facts money">
          <dt>Balance</dt>
          <dd data-testid="balance">{usd(w.balance_nano_usd)}</dd>
          <dt>Held by calls in progress</dt>
          <dd data-testid="held">{usd(w.held_nano_usd)}</dd>
          <dt>Available</dt>
          <dd>{usd(w.available_nano_usd)}</dd>
        </dl>
      )}
      <p class="muted">Credit is added by the operator (admin command <code>wallet-credit</code>). Each call holds its longest possible cost while it runs and is charged per started minute.</p>
      <Holds projectId={projectId} held={w?.held_nano_usd} />
      <h2>Ledger</h2>
      <ErrorNote error={ledger.error} />
      {ledger.data?.length === 0 && (
        <Empty>
          <p>No ledger entries{offset ? ' on this page' : ''}. Ask the operator to credit the wallet, then make a call.</p>
        </Empty>
      )}
      {ledger.data && ledger.data.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Kind</th>
                <th scope="col">Amount</th>
                <th scope="col">Session</th>
              </tr>
            </thead>
            <tbody data-testid="ledger">
              {ledger.data.map((e) => (
                <tr key={e.id}>
                  <td>{when(e.created_at)}</td>
                  <td>{e.kind}</td>
                  <td>{usd(e.amount_nano_usd)}</td>
                  <td>{e.session_id ? <a href={`/p/${projectId}/sessions/${e.session_id}`}>{e.session_id.slice(0, 8)}</a> : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager offset={offset} limit={LIMIT} count={ledger.data?.length ?? 0} onChange={setOffset} />
    </main>
  );
}

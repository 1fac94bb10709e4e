import type { Campaign, CampaignCounters, CampaignRowState, CampaignStatus } from '../types';
import { Badge } from '../ui';

// How far a campaign is: its status, a progress bar of finished rows and the count per state.

export const statusTone = (s: CampaignStatus) => (s === 'running' ? 'good' : s === 'paused' ? 'warn' : s === 'canceled' ? 'bad' : undefined);
export const rowTone = (s: CampaignRowState) => (s === 'completed' ? 'good' : s === 'failed' ? 'bad' : s === 'retrying' || s === 'in_progress' ? 'warn' : undefined);

export const finished = (c: CampaignCounters) => c.completed + c.failed + c.canceled;

/** A campaign changes until it finishes (a canceled one too, while its last calls go on). */
export const isLive = (c: Campaign) => c.finished_at === null;

export function StatusBadge({ status }: { status: CampaignStatus }) {
  return <Badge tone={statusTone(status)}>{status}</Badge>;
}

const STATES: [keyof CampaignCounters, string][] = [
  ['queued', 'Queued'],
  ['in_progress', 'In progress'],
  ['retrying', 'Retrying'],
  ['completed', 'Completed'],
  ['failed', 'Failed'],
  ['canceled', 'Canceled'],
];

export function ProgressBar({ campaign }: { campaign: Campaign }) {
  const c = campaign.counters;
  return (
    <span class="progress">
      <progress value={finished(c)} max={Math.max(1, c.total)} aria-label={`Rows finished in ${campaign.name}`} />
      <span>
        {finished(c)} of {c.total} done
      </span>
    </span>
  );
}

/** Every counter, labelled (the list shows the short form, the campaign page this). */
export function Counters({ counters }: { counters: CampaignCounters }) {
  return (
    <dl class="counters" data-testid="counters">
      <div>
        <dt>Total</dt>
        <dd>{counters.total}</dd>
      </div>
      {STATES.map(([k, label]) => (
        <div key={k} data-state={k}>
          <dt>{label}</dt>
          <dd>{counters[k]}</dd>
        </div>
      ))}
    </dl>
  );
}

/** "2 in progress · 1 failed": the non-zero counters in a line. */
export function countersLine(c: CampaignCounters): string {
  const parts = STATES.filter(([k]) => c[k] > 0).map(([k, label]) => `${c[k]} ${label.toLowerCase()}`);
  return parts.join(' · ') || 'no rows';
}

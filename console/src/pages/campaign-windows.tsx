import type { CallingWindow } from '../types';
import { Field } from '../ui';
import { issueAt, type CampaignIssues } from './campaign-issues';

// Calling windows: when calls may start, in the callee's local time. None: any time. Times are
// typed as HH:MM (a time picker cannot say 24:00, the end of a day).

const DAYS: [string, string][] = [
  ['mon', 'Mon'],
  ['tue', 'Tue'],
  ['wed', 'Wed'],
  ['thu', 'Thu'],
  ['fri', 'Fri'],
  ['sat', 'Sat'],
  ['sun', 'Sun'],
];

export const newWindow = (): CallingWindow => ({ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '09:00', end: '17:00' });

export function CallingWindows({ windows, onChange, issues }: { windows: CallingWindow[]; onChange: (w: CallingWindow[]) => void; issues: CampaignIssues }) {
  const set = (i: number, patch: Partial<CallingWindow>) => onChange(windows.map((w, k) => (k === i ? { ...w, ...patch } : w)));
  const whole = issueAt(issues, 'calling_windows');
  return (
    <fieldset>
      <legend>Calling windows</legend>
      <p class="muted">
        Calls start only inside a window, in the callee's local time (the row's time zone, else the campaign's). No window: any time. A window over midnight is
        two windows; 24:00 ends a day.
      </p>
      {whole && (
        <small class="field-error" role="alert">
          {whole}
        </small>
      )}
      {windows.map((w, i) => {
        const n = i + 1;
        const at = (k: string) => issueAt(issues, `calling_windows.${i}.${k}`);
        const days = [at('days'), ...DAYS.map((_, d) => at(`days.${d}`))].filter(Boolean).join('; ') || undefined;
        return (
          <fieldset key={i} class="window" data-testid={`window-${n}`}>
            <legend>Window {n}</legend>
            <div role="group" aria-label={`Days of window ${n}`} class="days">
              {DAYS.map(([value, label]) => (
                <label class="check" key={value}>
                  <input
                    type="checkbox"
                    checked={w.days.includes(value)}
                    onChange={(e) => set(i, { days: (e.target as HTMLInputElement).checked ? DAYS.map(([d]) => d).filter((d) => d === value || w.days.includes(d)) : w.days.filter((d) => d !== value) })}
                  />{' '}
                  {label}
                </label>
              ))}
            </div>
            {days && (
              <small class="field-error" role="alert">
                {days}
              </small>
            )}
            <div class="row">
              <Field label={`Window ${n} starts`} error={at('start') ?? issueAt(issues, `calling_windows.${i}`)} hint="HH:MM">
                {(id, d) => <input id={id} class="clock" value={w.start} inputMode="numeric" aria-describedby={d} aria-invalid={at('start') ? true : undefined} onInput={(e) => set(i, { start: (e.target as HTMLInputElement).value.trim() })} />}
              </Field>
              <Field label={`Window ${n} ends`} error={at('end')} hint="HH:MM, up to 24:00">
                {(id, d) => <input id={id} class="clock" value={w.end} inputMode="numeric" aria-describedby={d} aria-invalid={at('end') ? true : undefined} onInput={(e) => set(i, { end: (e.target as HTMLInputElement).value.trim() })} />}
              </Field>
            </div>
            <button type="button" onClick={() => onChange(windows.filter((_, k) => k !== i))}>
              Remove window {n}
            </button>
          </fieldset>
        );
      })}
      <button type="button" onClick={() => onChange([...windows, newWindow()])}>
        Add a calling window
      </button>
    </fieldset>
  );
}

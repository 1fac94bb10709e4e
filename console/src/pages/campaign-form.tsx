import { useState } from 'preact/hooks';
import { api, projectPath } from '../api';
import { navigate } from '../router';
import type { JsonSchema } from '../schema';
import type { Agent, CallingWindow, Campaign, CarrierNumber } from '../types';
import { ErrorNote, Field, TextField, useSubmit } from '../ui';
import { campaignIssues, issueAt, unplacedIssues } from './campaign-issues';
import { parseRows, type ParsedRows } from './campaign-rows';
import { CallingWindows } from './campaign-windows';

// The create form of a campaign. Bounds and defaults of the numbers come from the create body's
// JSON Schema (/openapi.json); a 422's issues are placed on their fields, a row's on that row
// (with the CSV line it came from), a `from` number's on that number.

interface Bounds {
  min?: number;
  max?: number;
  def?: number;
}
const bounds = (s: JsonSchema | undefined): Bounds => ({ min: s?.minimum, max: s?.maximum, def: typeof s?.default === 'number' ? s.default : undefined });
const boundsHint = (b: Bounds, unit = '') => (b.min !== undefined && b.max !== undefined ? `${b.min} to ${b.max}${unit}.` : '');

/** The number typed, or undefined (the service's default) when the box is empty. */
const numberOrDefault = (v: string) => (v.trim() === '' ? undefined : Number(v));

const RETRYABLE: [string, string][] = [
  ['busy', 'Busy'],
  ['no_answer', 'No answer'],
];

const ROWS_HINT =
  'CSV with a first line naming the columns: "to", then the agent\'s variables (a "timezone" column sets the row\'s time zone). Or a JSON array of rows: [{"to": "+14155550123", "variables": {…}}].';
const ROWS_PLACEHOLDER = 'to,first_name\n+14155550123,Ada\n+14155550124,Lin';

/** Places the form shows a 422 at (everything else is listed under the form). */
const SHOWN = /^(name|agent_id|from_numbers(\.\d+)?|rows|max_concurrent_calls|timezone|calling_windows(\.\d+(\.(days(\.\d+)?|start|end))?)?|retry(\.(max_attempts|min_spacing_seconds|on(\.\d+)?))?)$/;

function timeZones(): string[] {
  try {
    return Intl.supportedValuesOf('timeZone');
  } catch {
    return [];
  }
}

export function CampaignForm({ projectId, schema, agents, numbers }: { projectId: string; schema: JsonSchema; agents: Agent[]; numbers: CarrierNumber[] }) {
  const props = schema.properties ?? {};
  const retryProps = props.retry?.properties ?? {};
  const concurrency = bounds(props.max_concurrent_calls);
  const attempts = bounds(retryProps.max_attempts);
  const spacing = bounds(retryProps.min_spacing_seconds);

  const [name, setName] = useState('');
  const [agentId, setAgentId] = useState(agents[0]?.id ?? '');
  const [from, setFrom] = useState<string[]>(numbers.map((n) => n.e164));
  const [rowsText, setRowsText] = useState('');
  const [maxConcurrent, setMaxConcurrent] = useState(String(concurrency.def ?? ''));
  const [timezone, setTimezone] = useState(() => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');
  const [windows, setWindows] = useState<CallingWindow[]>([]);
  const [maxAttempts, setMaxAttempts] = useState(String(attempts.def ?? ''));
  const [minSpacing, setMinSpacing] = useState(String(spacing.def ?? ''));
  const [retryOn, setRetryOn] = useState<string[]>(RETRYABLE.map(([v]) => v));
  const [rowsProblem, setRowsProblem] = useState<string | null>(null);
  // The rows as they were sent: a 422's row indexes refer to these, whatever the box holds now.
  const [sent, setSent] = useState<ParsedRows | null>(null);
  const save = useSubmit();

  const issues = campaignIssues(save.error);
  const at = (key: string) => issueAt(issues, key);
  const fromNumbersIssue = at('from_numbers');
  const badRows = [...issues.rows.keys()].sort((a, b) => a - b);
  const rowsIssue = rowsProblem ?? at('rows') ?? (badRows.length ? `${badRows.length === 1 ? '1 row has' : `${badRows.length} rows have`} problems: see the list below.` : undefined);
  const others = unplacedIssues(issues, (k) => SHOWN.test(k));
  const parsed = parseRows(rowsText);

  const submit = (e: Event) => {
    e.preventDefault();
    const rows = parseRows(rowsText);
    setRowsProblem(rows.error ?? (rows.format === 'empty' ? 'paste at least one row' : null));
    if (rows.error || rows.format === 'empty') return;
    setSent(rows);
    void save.run(async () => {
      const body = {
        name,
        agent_id: agentId,
        from_numbers: from,
        rows: rows.rows,
        max_concurrent_calls: numberOrDefault(maxConcurrent),
        timezone: timezone.trim(),
        calling_windows: windows,
        retry: { max_attempts: numberOrDefault(maxAttempts), min_spacing_seconds: numberOrDefault(minSpacing), on: retryOn },
      };
      const created = await api<Campaign>('POST', projectPath(projectId, '/voice/campaigns'), body);
      navigate(`/p/${projectId}/campaigns/${created.id}`);
    });
  };

  return (
    <form aria-label="New campaign" onSubmit={submit} noValidate>
      <TextField label="Campaign name" name="name" value={name} onInput={setName} error={at('name')} required />
      <Field label="Agent" error={at('agent_id')}>
        {(id, d) => (
          <select id={id} aria-describedby={d} aria-invalid={at('agent_id') ? true : undefined} value={agentId} onChange={(e) => setAgentId((e.target as HTMLSelectElement).value)}>
            {agents.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </select>
        )}
      </Field>

      <fieldset>
        <legend>Call from</legend>
        <p class="muted">Numbers with outbound calls on. Rows use them in turn, and a retry uses the next one.</p>
        {numbers.map((n) => {
          const i = from.indexOf(n.e164);
          const issue = i >= 0 ? at(`from_numbers.${i}`) : undefined;
          return (
            <div key={n.id} class={issue ? 'field check invalid' : 'field check'}>
              <label>
                <input
                  type="checkbox"
                  checked={i >= 0}
                  aria-invalid={issue ? true : undefined}
                  onChange={(e) => setFrom((e.target as HTMLInputElement).checked ? numbers.map((x) => x.e164).filter((x) => x === n.e164 || from.includes(x)) : from.filter((x) => x !== n.e164))}
                />{' '}
                {n.e164}
              </label>
              {issue && (
                <small class="field-error" role="alert">
                  {issue}
                </small>
              )}
            </div>
          );
        })}
        {fromNumbersIssue && (
          <small class="field-error" role="alert">
            {fromNumbersIssue}
          </small>
        )}
      </fieldset>

      <Field label="Rows" error={rowsIssue} hint={ROWS_HINT}>
        {(id, d) => (
          <textarea
            id={id}
            name="rows"
            rows={8}
            class="mono"
            placeholder={ROWS_PLACEHOLDER}
            spellcheck={false}
            aria-describedby={d}
            aria-invalid={rowsIssue ? true : undefined}
            value={rowsText}
            onInput={(e) => {
              setRowsText((e.target as HTMLTextAreaElement).value);
              setRowsProblem(null);
            }}
          />
        )}
      </Field>
      <p class="muted" aria-live="polite" data-testid="rows-read">
        {parsed.format === 'empty' ? 'No rows yet.' : parsed.error ? `Cannot read the rows: ${parsed.error}` : `${parsed.rows.length} ${parsed.rows.length === 1 ? 'row' : 'rows'} read (${parsed.format.toUpperCase()}).`}
      </p>
      {sent && badRows.length > 0 && <RowProblems rows={sent} indexes={badRows} messages={issues.rows} />}

      <div class="row">
        <Field label="Calls at once" error={at('max_concurrent_calls')} hint={boundsHint(concurrency)}>
          {(id, d) => <input id={id} type="number" step={1} min={concurrency.min} max={concurrency.max} aria-describedby={d} aria-invalid={at('max_concurrent_calls') ? true : undefined} value={maxConcurrent} onInput={(e) => setMaxConcurrent((e.target as HTMLInputElement).value)} />}
        </Field>
        <Field label="Time zone" error={at('timezone')} hint="IANA name, for rows without their own.">
          {(id, d) => (
            <>
              <input id={id} list={`${id}-zones`} autoComplete="off" aria-describedby={d} aria-invalid={at('timezone') ? true : undefined} value={timezone} onInput={(e) => setTimezone((e.target as HTMLInputElement).value)} />
              <datalist id={`${id}-zones`}>
                {timeZones().map((z) => (
                  <option key={z} value={z} />
                ))}
              </datalist>
            </>
          )}
        </Field>
      </div>

      <CallingWindows windows={windows} onChange={setWindows} issues={issues} />

      <fieldset>
        <legend>Retries</legend>
        <div class="row">
          <Field label="Attempts per row" error={at('retry.max_attempts')} hint={`${boundsHint(attempts)} 1: no retry.`}>
            {(id, d) => <input id={id} type="number" step={1} min={attempts.min} max={attempts.max} aria-describedby={d} aria-invalid={at('retry.max_attempts') ? true : undefined} value={maxAttempts} onInput={(e) => setMaxAttempts((e.target as HTMLInputElement).value)} />}
          </Field>
          <Field label="Seconds between attempts" error={at('retry.min_spacing_seconds')} hint={`${boundsHint(spacing)} 600 is 10 minutes.`}>
            {(id, d) => <input id={id} type="number" step={1} min={spacing.min} max={spacing.max} aria-describedby={d} aria-invalid={at('retry.min_spacing_seconds') ? true : undefined} value={minSpacing} onInput={(e) => setMinSpacing((e.target as HTMLInputElement).value)} />}
          </Field>
        </div>
        <div role="group" aria-label="Retry when the call is">
          <span class="muted">Retry when the call is: </span>
          {RETRYABLE.map(([value, label]) => (
            <label class="check" key={value}>
              <input type="checkbox" checked={retryOn.includes(value)} onChange={(e) => setRetryOn((e.target as HTMLInputElement).checked ? RETRYABLE.map(([v]) => v).filter((v) => v === value || retryOn.includes(v)) : retryOn.filter((v) => v !== value))} />{' '}
              {label}
            </label>
          ))}
        </div>
        {at('retry.on') && (
          <small class="field-error" role="alert">
            {at('retry.on')}
          </small>
        )}
      </fieldset>

      {issues.count > 0 ? (
        <div class="error" role="alert" data-testid="form-problems">
          <p>
            The campaign was not started: {issues.count === 1 ? '1 problem' : `${issues.count} problems`}, shown at {issues.count === 1 ? 'its place' : 'their places'}.
          </p>
          {others.length > 0 && (
            <ul>
              {others.map(([k, m], i) => (
                <li key={i}>
                  {k}: {m}
                </li>
              ))}
            </ul>
          )}
        </div>
      ) : (
        <ErrorNote error={save.error} />
      )}
      <button type="submit" class="primary" disabled={save.busy}>
        Start campaign
      </button>
    </form>
  );
}

/** The rows a 422 names, with the line each came from and what is wrong with it. */
function RowProblems({ rows, indexes, messages }: { rows: ParsedRows; indexes: number[]; messages: Map<number, string[]> }) {
  const shown = indexes.slice(0, 100);
  return (
    <section aria-labelledby="row-problems-h">
      <h3 id="row-problems-h">Rows with problems</h3>
      {indexes.length > shown.length && <p class="muted">The first {shown.length} of {indexes.length} are listed.</p>}
      <div class="table-wrap">
        <table data-testid="row-problems">
          <thead>
            <tr>
              <th scope="col">Row</th>
              {rows.format === 'csv' && <th scope="col">Line</th>}
              <th scope="col">To</th>
              <th scope="col">Problem</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((i) => (
              <tr key={i} data-row={i + 1}>
                <th scope="row">Row {i + 1}</th>
                {rows.format === 'csv' && <td>{rows.lines[i] ?? '—'}</td>}
                <td class="wrap">{typeof rows.rows[i]?.to === 'string' ? rows.rows[i].to : '—'}</td>
                <td class="field-error">{(messages.get(i) ?? []).join('; ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

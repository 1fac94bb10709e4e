import { useState } from 'preact/hooks';
import { api, projectPath } from '../api';
import type { WebhookEndpoint } from '../types';
import { ErrorNote, TextField, useSubmit } from '../ui';

// Creating an endpoint, and "editing" one. The service has no in-place update of an endpoint
// (contract §7 and spec §4.5 define create, list, disable, test and dead letters only), so an
// edit is a replacement: a new endpoint with the edited fields and a new signing secret, then
// the old one is disabled. The form says so before the person saves.

export const EVENT_TYPES = ['call.completed', 'call.failed', 'webhook.ping'] as const;

interface Created {
  signing_secret: string;
  id: string;
  name: string;
}

/** The first field error at `key` or below it (`event_types.0` counts for `event_types`). */
const fieldError = (fields: Record<string, string>, key: string) => fields[key] ?? Object.entries(fields).find(([k]) => k.startsWith(`${key}.`))?.[1];

export function EndpointForm({ projectId, replacing, onSaved, onCancel }: { projectId: string; replacing?: WebhookEndpoint; onSaved: (created: Created, disableError: unknown) => void; onCancel?: () => void }) {
  const [name, setName] = useState(replacing?.name ?? '');
  const [url, setUrl] = useState(replacing?.url ?? '');
  const [events, setEvents] = useState<string[]>(replacing?.event_types ?? []);
  const save = useSubmit();
  const title = replacing ? `Edit ${replacing.name}` : 'Add an endpoint';
  return (
    <form
      aria-label={title}
      onSubmit={(e) => {
        e.preventDefault();
        void save.run(async () => {
          const created = await api<Created>('POST', projectPath(projectId, '/webhooks'), { name, url, event_types: events });
          // The new secret must reach the person even if disabling the old endpoint fails.
          let disableError: unknown = null;
          if (replacing) await api('DELETE', projectPath(projectId, `/webhooks/${replacing.id}`)).catch((err: unknown) => (disableError = err));
          onSaved(created, disableError);
          if (!replacing) {
            setName('');
            setUrl('');
            setEvents([]);
          }
        });
      }}
    >
      <h3>{title}</h3>
      {replacing && (
        <p class="notice">
          Endpoints cannot be changed in place. Saving creates a new endpoint with these settings and a <strong>new signing secret</strong>, then disables {replacing.name}.
        </p>
      )}
      <TextField label="Endpoint name" name="name" value={name} onInput={setName} error={save.fields.name} required />
      <TextField label="Endpoint URL" name="url" type="url" placeholder="https://example.com/hooks/voice" hint="https only, on a public host; deliveries are signed (Standard Webhooks)." value={url} onInput={setUrl} error={save.fields.url} required />
      <fieldset>
        <legend>Events</legend>
        <p class="muted">None ticked: every event, including ones added later.</p>
        {EVENT_TYPES.map((t) => (
          <label class="check" key={t}>
            <input type="checkbox" checked={events.includes(t)} onChange={(e) => setEvents((e.target as HTMLInputElement).checked ? [...events, t] : events.filter((x) => x !== t))} /> {t}
          </label>
        ))}
        {fieldError(save.fields, 'event_types') && (
          <small class="field-error" role="alert">
            {fieldError(save.fields, 'event_types')}
          </small>
        )}
      </fieldset>
      <ErrorNote error={save.error} />
      <div class="row">
        <button type="submit" class="primary" disabled={save.busy}>
          {replacing ? 'Save as a new endpoint' : 'Create endpoint'}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

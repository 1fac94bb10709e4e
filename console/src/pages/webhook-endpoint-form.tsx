import { useState } from 'preact/hooks';
import { api, projectPath } from '../api';
import { bodySchema, shapeOf } from '../schema';
import type { WebhookEndpoint } from '../types';
import { ErrorNote, Loading, TextField, useLoad, useSubmit } from '../ui';

// Creating an endpoint (POST; the signing secret comes back once) and editing one in place
// (PATCH with only the changed fields; the signing secret stays, the revision goes up).
// The event types offered are the create body's enum in /openapi.json, so a new event of the
// service appears here without a console change.

const WEBHOOKS_BODY = '/console/v2/projects/{project_id}/webhooks';

/** The event types an endpoint may subscribe to, as the service documents them. */
export async function loadEventTypes(): Promise<string[]> {
  const items = (await bodySchema(WEBHOOKS_BODY, 'post')).properties?.event_types?.items;
  const values = items ? shapeOf(items).schema.enum : undefined;
  if (!values?.length) throw new Error('the API schema lists no webhook event types');
  return values.map(String);
}

interface Created {
  signing_secret: string;
  id: string;
  name: string;
}

/** The first field error at `key` or below it (`event_types.0` counts for `event_types`). */
const fieldError = (fields: Record<string, string>, key: string) => fields[key] ?? Object.entries(fields).find(([k]) => k.startsWith(`${key}.`))?.[1];

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x));

export function EndpointForm({
  projectId,
  editing,
  onCreated,
  onUpdated,
  onCancel,
}: {
  projectId: string;
  editing?: WebhookEndpoint;
  onCreated?: (created: Created) => void;
  onUpdated?: (endpoint: WebhookEndpoint) => void;
  onCancel?: () => void;
}) {
  const [name, setName] = useState(editing?.name ?? '');
  const [url, setUrl] = useState(editing?.url ?? '');
  const [events, setEvents] = useState<string[]>(editing?.event_types ?? []);
  const eventTypes = useLoad(loadEventTypes, []);
  const save = useSubmit();
  const title = editing ? `Edit ${editing.name}` : 'Add an endpoint';
  return (
    <form
      aria-label={title}
      onSubmit={(e) => {
        e.preventDefault();
        void save.run(async () => {
          if (editing) {
            const changes: Partial<Pick<WebhookEndpoint, 'name' | 'url' | 'event_types'>> = {};
            if (name !== editing.name) changes.name = name;
            if (url !== editing.url) changes.url = url;
            if (!sameSet(events, editing.event_types)) changes.event_types = events;
            onUpdated?.(await api<WebhookEndpoint>('PATCH', projectPath(projectId, `/webhooks/${editing.id}`), changes));
            return;
          }
          const created = await api<Created>('POST', projectPath(projectId, '/webhooks'), { name, url, event_types: events });
          onCreated?.(created);
          setName('');
          setUrl('');
          setEvents([]);
        });
      }}
    >
      <h3>{title}</h3>
      {editing && <p class="muted">Changes apply in place: the signing secret stays the same, and queued deliveries go to the new URL.</p>}
      <TextField label="Endpoint name" name="name" value={name} onInput={setName} error={save.fields.name} required />
      <TextField label="Endpoint URL" name="url" type="url" placeholder="https://example.com/hooks/voice" hint="https only, on a public host; deliveries are signed (Standard Webhooks)." value={url} onInput={setUrl} error={save.fields.url} required />
      <fieldset>
        <legend>Events</legend>
        <p class="muted">None ticked: every event, including ones added later.</p>
        {eventTypes.loading && !eventTypes.data && <Loading what="event types" />}
        <ErrorNote error={eventTypes.error} />
        {eventTypes.data?.map((t) => (
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
          {editing ? 'Save changes' : 'Create endpoint'}
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

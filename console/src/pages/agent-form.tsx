import { useState } from 'preact/hooks';
import { api, projectPath } from '../api';
import { labelOf, shapeOf, type JsonSchema } from '../schema';
import type { Agent, CatalogueEntry, ProviderAccount } from '../types';
import { ErrorNote, Field, useSubmit } from '../ui';
import { emptyConfig, PipelinePicker } from './pipeline-picker';

// Create and edit agents with one form built from the create body's JSON Schema. Errors of a
// 422 are placed on the field their `loc` names (nested locations on their top-level field).

type Values = Record<string, unknown>;
const CUSTOM = new Set(['pipeline_mode', 'pipeline_config', 'variables']);
const GROUPS: { title: string; keys: (k: string, kind: string) => boolean }[] = [
  { title: 'Basics', keys: (k) => ['name', 'display_name', 'language', 'prompt', 'greeting'].includes(k) },
  { title: 'Behaviours', keys: (_k, kind) => kind === 'boolean' },
  { title: 'Limits', keys: (_k, kind) => kind === 'integer' || kind === 'number' },
  { title: 'Webhooks and tools', keys: (k) => /webhook|tool/.test(k) },
  { title: 'More', keys: () => true },
];

function initialValues(schema: JsonSchema, agent?: Agent): Values {
  const out: Values = {};
  for (const [k, s] of Object.entries(schema.properties ?? {})) {
    const v = agent ? agent[k] : s.default;
    out[k] = v === undefined ? (shapeOf(s).kind === 'json' ? null : null) : v;
  }
  out.pipeline_mode ??= 'cascade';
  if (!out.pipeline_config || Object.keys(out.pipeline_config as object).length === 0) out.pipeline_config = emptyConfig(out.pipeline_mode as 'cascade');
  out.variables ??= [];
  return out;
}

/** The first error at `key` or below it. */
function errorAt(errors: Record<string, string>, key: string): string | undefined {
  if (errors[key]) return errors[key];
  const nested = Object.keys(errors).find((k) => k.startsWith(`${key}.`));
  return nested ? `${nested.slice(key.length + 1)}: ${errors[nested]}` : undefined;
}

function GenericField({ name, schema, value, required, error, onChange }: { name: string; schema: JsonSchema; value: unknown; required: boolean; error?: string; onChange: (v: unknown) => void }) {
  const shape = shapeOf(schema);
  const s = shape.schema;
  const bounds = s.minimum !== undefined || s.maximum !== undefined ? `${s.minimum ?? '…'} to ${s.maximum ?? '…'}` : undefined;
  if (shape.kind === 'boolean') {
    return (
      <div class={error ? 'field check invalid' : 'field check'}>
        <label>
          <input type="checkbox" name={name} checked={value === true} onChange={(e) => onChange((e.target as HTMLInputElement).checked)} /> {labelOf(name)}
        </label>
        {error && <small class="field-error" role="alert">{error}</small>}
      </div>
    );
  }
  const hint = [bounds && `Allowed: ${bounds}.`, shape.nullable && !required && 'Leave empty for none.'].filter(Boolean).join(' ') || undefined;
  return (
    <Field label={labelOf(name) + (required ? ' (required)' : '')} error={error} hint={hint}>
      {(id, d) => {
        const common = { id, name, 'aria-describedby': d, 'aria-invalid': error ? true : undefined };
        if (shape.kind === 'integer' || shape.kind === 'number') {
          return (
            <input
              {...common}
              type="number"
              step={shape.kind === 'integer' ? 1 : 'any'}
              value={value === null || value === undefined ? '' : String(value)}
              onInput={(e) => {
                const raw = (e.target as HTMLInputElement).value;
                onChange(raw === '' ? null : Number(raw));
              }}
            />
          );
        }
        if (shape.kind === 'enum') {
          return (
            <select {...common} value={value === null || value === undefined ? '' : String(value)} onChange={(e) => onChange((e.target as HTMLSelectElement).value || null)}>
              <option value="">{shape.nullable ? 'None' : 'Choose'}</option>
              {(s.enum ?? []).map((o) => (
                <option key={String(o)} value={String(o)}>
                  {String(o)}
                </option>
              ))}
            </select>
          );
        }
        if (shape.kind === 'string') {
          const long = (s.maxLength ?? 0) > 1000;
          const text = value === null || value === undefined ? '' : String(value);
          const set = (raw: string) => onChange(raw === '' && shape.nullable ? null : raw);
          return long ? (
            <textarea {...common} rows={name === 'prompt' ? 8 : 3} value={text} onInput={(e) => set((e.target as HTMLTextAreaElement).value)} />
          ) : (
            <input {...common} value={text} onInput={(e) => set((e.target as HTMLInputElement).value)} />
          );
        }
        // Objects and arrays (tools, insight_config, …) as JSON text; parsed on submit.
        const text = typeof value === 'string' ? value : value === null || value === undefined ? '' : JSON.stringify(value, null, 2);
        return <textarea {...common} class="mono" rows={4} value={text} placeholder="JSON" onInput={(e) => onChange((e.target as HTMLTextAreaElement).value)} />;
      }}
    </Field>
  );
}

function VariablesEditor({ value, errors, onChange }: { value: { name: string; required: boolean }[]; errors: Record<string, string>; onChange: (v: { name: string; required: boolean }[]) => void }) {
  return (
    <fieldset>
      <legend>Variables</legend>
      <p class="muted">
        Filled per call and used in the prompt and greeting as <code>{'{{name}}'}</code>.
      </p>
      {errors.variables && <p class="field-error" role="alert">{errors.variables}</p>}
      {value.length === 0 && <p class="muted">No variables.</p>}
      {value.map((v, i) => (
        <div class="row" key={i}>
          <Field label={`Variable ${i + 1} name`} error={errorAt(errors, `variables.${i}`)}>
            {(id, d) => <input id={id} aria-describedby={d} value={v.name} onInput={(e) => onChange(value.map((x, j) => (j === i ? { ...x, name: (e.target as HTMLInputElement).value } : x)))} />}
          </Field>
          <label class="check">
            <input type="checkbox" checked={v.required} onChange={(e) => onChange(value.map((x, j) => (j === i ? { ...x, required: (e.target as HTMLInputElement).checked } : x)))} /> required
          </label>
          <button type="button" onClick={() => onChange(value.filter((_, j) => j !== i))}>
            Remove variable {i + 1}
          </button>
        </div>
      ))}
      <button type="button" onClick={() => onChange([...value, { name: '', required: false }])}>
        Add variable
      </button>
    </fieldset>
  );
}

export function AgentForm(props: {
  projectId: string;
  schema: JsonSchema;
  accounts: ProviderAccount[];
  catalogue: CatalogueEntry[];
  agent?: Agent;
  onSaved: (result: { agent: Agent; webhook_secret?: string }) => void;
}) {
  const { schema, agent } = props;
  const [values, setValues] = useState<Values>(() => initialValues(schema, agent));
  const { busy, error, fields, run } = useSubmit();
  const [local, setLocal] = useState<Record<string, string>>({});
  const errors = { ...fields, ...local };
  const required = new Set(schema.required ?? []);
  const set = (k: string, v: unknown) => setValues((cur) => ({ ...cur, [k]: v }));
  const keys = Object.keys(schema.properties ?? {}).filter((k) => !CUSTOM.has(k));
  const placed = new Set<string>();
  const mode = (values.pipeline_mode as 'cascade' | 'realtime') ?? 'cascade';

  const body = (): Values | null => {
    const out: Values = {};
    const bad: Record<string, string> = {};
    for (const k of Object.keys(schema.properties ?? {})) {
      let v = values[k];
      if (shapeOf(schema.properties![k]).kind === 'json' && typeof v === 'string') {
        if (v.trim() === '') v = null;
        else {
          try {
            v = JSON.parse(v);
          } catch {
            bad[k] = 'not valid JSON';
            continue;
          }
        }
      }
      if (agent) {
        // Edit: send only what changed, so the version records exactly the change.
        if (JSON.stringify(v ?? null) !== JSON.stringify(agent[k] ?? null)) out[k] = v;
      } else if (v !== null && v !== undefined) out[k] = v;
    }
    setLocal(bad);
    return Object.keys(bad).length ? null : out;
  };

  return (
    <form
      class="agent-form"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        const b = body();
        if (!b) return;
        void run(async () => {
          if (agent) props.onSaved({ agent: await api<Agent>('PATCH', projectPath(props.projectId, `/agents/${agent.id}`), b) });
          else props.onSaved(await api<{ agent: Agent; webhook_secret: string }>('POST', projectPath(props.projectId, '/agents'), b));
        });
      }}
    >
      {GROUPS.map((g) => {
        const mine = keys.filter((k) => !placed.has(k) && g.keys(k, shapeOf(schema.properties![k]).kind));
        mine.forEach((k) => placed.add(k));
        if (g.title === 'Basics') {
          return (
            <div key={g.title}>
              <fieldset>
                <legend>{g.title}</legend>
                {mine.map((k) => (
                  <GenericField key={k} name={k} schema={schema.properties![k]} value={values[k]} required={required.has(k)} error={errorAt(errors, k)} onChange={(v) => set(k, v)} />
                ))}
              </fieldset>
              <fieldset>
                <legend>Pipeline mode</legend>
                {(['cascade', 'realtime'] as const).map((m) => (
                  <label class="check" key={m}>
                    <input type="radio" name="pipeline_mode" value={m} checked={mode === m} onChange={() => setValues((cur) => ({ ...cur, pipeline_mode: m, pipeline_config: emptyConfig(m) }))} /> {m}
                  </label>
                ))}
                {errors.pipeline_mode && <small class="field-error" role="alert">{errors.pipeline_mode}</small>}
              </fieldset>
              <PipelinePicker
                projectId={props.projectId}
                mode={mode}
                value={values.pipeline_config as Record<string, Record<string, unknown>>}
                accounts={props.accounts}
                catalogue={props.catalogue}
                errors={errors}
                onChange={(c) => set('pipeline_config', c)}
              />
              <VariablesEditor value={values.variables as { name: string; required: boolean }[]} errors={errors} onChange={(v) => set('variables', v)} />
            </div>
          );
        }
        if (mine.length === 0) return null;
        return (
          <fieldset key={g.title}>
            <legend>{g.title}</legend>
            {mine.map((k) => (
              <GenericField key={k} name={k} schema={schema.properties![k]} value={values[k]} required={required.has(k)} error={errorAt(errors, k)} onChange={(v) => set(k, v)} />
            ))}
          </fieldset>
        );
      })}
      <ErrorNote error={error} />
      <button type="submit" class="primary" disabled={busy}>
        {agent ? 'Save changes' : 'Create agent'}
      </button>
    </form>
  );
}

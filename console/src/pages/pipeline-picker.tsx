import type { CatalogueEntry, ProviderAccount } from '../types';
import { Field } from '../ui';

// The pipeline picker: each stage chooses one of the project's verified provider accounts that
// offers the stage, then one of that provider's models from the catalogue.

type Stage = 'stt' | 'llm' | 'tts' | 'realtime';
type Config = Record<string, Record<string, unknown>>;

const STAGES: Record<'cascade' | 'realtime', Stage[]> = { cascade: ['stt', 'llm', 'tts'], realtime: ['realtime'] };
const STAGE_NAMES: Record<Stage, string> = { stt: 'Speech to text', llm: 'Language model', tts: 'Text to speech', realtime: 'Realtime model' };

export function emptyConfig(mode: 'cascade' | 'realtime'): Config {
  return Object.fromEntries(STAGES[mode].map((s) => [s, {}]));
}

export function PipelinePicker(props: {
  projectId: string;
  mode: 'cascade' | 'realtime';
  value: Config;
  accounts: ProviderAccount[];
  catalogue: CatalogueEntry[];
  errors: Record<string, string>;
  onChange: (c: Config) => void;
}) {
  const verified = props.accounts.filter((a) => a.status === 'verified');
  const offers = (provider: string, stage: Stage) => props.catalogue.find((c) => c.provider === provider)?.stages[stage] ?? [];
  const err = (stage: Stage, key?: string) => props.errors[key ? `pipeline_config.${stage}.${key}` : `pipeline_config.${stage}`];
  const set = (stage: Stage, patch: Record<string, unknown>) => props.onChange({ ...props.value, [stage]: { ...(props.value[stage] ?? {}), ...patch } });
  return (
    <fieldset>
      <legend>Pipeline</legend>
      {verified.length === 0 && (
        <p class="notice">
          No verified provider account yet. <a href={`/p/${props.projectId}/providers`}>Add one</a> (the <code>local</code> provider needs no key) and verify it first.
        </p>
      )}
      {props.errors.pipeline_config && (
        <p class="field-error" role="alert">
          {props.errors.pipeline_config}
        </p>
      )}
      {STAGES[props.mode].map((stage) => {
        const cur = props.value[stage] ?? {};
        const account = verified.find((a) => a.id === cur.account_id);
        const candidates = verified.filter((a) => offers(a.provider, stage).length > 0);
        const models = account ? offers(account.provider, stage) : [];
        return (
          <div class="stage" key={stage}>
            <h3>{STAGE_NAMES[stage]}</h3>
            <Field label={`${STAGE_NAMES[stage]} account`} error={err(stage, 'account_id') ?? err(stage)}>
              {(id, d) => (
                <select
                  id={id}
                  aria-describedby={d}
                  value={String(cur.account_id ?? '')}
                  onChange={(e) => {
                    const acc = verified.find((a) => a.id === (e.target as HTMLSelectElement).value);
                    const first = acc ? offers(acc.provider, stage)[0] : undefined;
                    set(stage, { account_id: acc?.id, model: first });
                  }}
                >
                  <option value="">Choose an account</option>
                  {candidates.map((a) => (
                    <option key={a.id} value={a.id}>
                      {a.label} ({a.provider})
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field label={`${STAGE_NAMES[stage]} model`} error={err(stage, 'model')}>
              {(id, d) => (
                <select id={id} aria-describedby={d} value={String(cur.model ?? '')} disabled={!account} onChange={(e) => set(stage, { model: (e.target as HTMLSelectElement).value })}>
                  <option value="">Choose a model</option>
                  {models.map((m) => (
                    <option key={m} value={m}>
                      {m}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            {(stage === 'tts' || stage === 'realtime') && (
              <Field label={`${STAGE_NAMES[stage]} voice`} error={err(stage, 'voice')} hint="The provider's own voice name (espeak-ng: en-us).">
                {(id, d) => <input id={id} aria-describedby={d} value={String(cur.voice ?? '')} onInput={(e) => set(stage, { voice: (e.target as HTMLInputElement).value })} />}
              </Field>
            )}
          </div>
        );
      })}
    </fieldset>
  );
}

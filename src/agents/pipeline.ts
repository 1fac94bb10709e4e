import { findProviderAccounts } from '../db/repos/provider-accounts.js';
import type { Db } from '../shared/sql.js';
import { catalogueEntry, offersModel, offersStage, type Stage } from '../contract/catalogue.js';
import { toFieldErrors } from '../contract/validation.js';
import { errors, type FieldError } from '../shared/errors.js';
import { CascadeConfig, RealtimeConfig, type PipelineConfig, type PipelineMode } from '../contract/agents.js';

// pipeline_config is checked in two steps: its shape for the mode (strict: a stray key is a
// 422 naming it), then each stage's account: in the project, not deleted, verified, and its
// provider offering the stage and the model.

const LOC = ['body', 'pipeline_config'];

function shapeErrors(mode: PipelineMode, raw: unknown): { config?: PipelineConfig; problems: FieldError[] } {
  const parsed = (mode === 'cascade' ? CascadeConfig : RealtimeConfig).safeParse(raw);
  if (parsed.success) return { config: parsed.data, problems: [] };
  const problems = toFieldErrors(parsed.error.issues, 'body', raw).map((e) => ({ ...e, loc: [...LOC, ...e.loc.slice(1)] }));
  return { problems };
}

/** The validated config, or throws the contract's 422 with every problem found. */
export async function validatePipeline(sql: Db, projectId: string, mode: PipelineMode, raw: unknown): Promise<PipelineConfig> {
  const { config, problems } = shapeErrors(mode, raw);
  if (!config) throw errors.validation(problems);
  const stages = Object.entries(config) as [Stage, { account_id: string; model: string }][];
  const accounts = await findProviderAccounts(sql, projectId, [...new Set(stages.map(([, s]) => s.account_id.toLowerCase()))]);
  for (const [stage, s] of stages) {
    const at = [...LOC, stage];
    const account = accounts.get(s.account_id.toLowerCase());
    if (!account) {
      problems.push({ loc: [...at, 'account_id'], msg: 'provider account not found in this project', type: 'value_error' });
    } else if (!offersStage(account.provider, stage)) {
      const offered = Object.keys(catalogueEntry(account.provider)?.stages ?? {}).join(', ');
      problems.push({ loc: [...at, 'account_id'], msg: `provider ${account.provider} does not offer the ${stage} stage (it offers ${offered})`, type: 'value_error' });
    } else {
      if (account.status !== 'verified') {
        problems.push({ loc: [...at, 'account_id'], msg: `provider account is not verified (status ${account.status}); verify it first`, type: 'value_error' });
      }
      if (!offersModel(account.provider, stage, s.model)) {
        const models = catalogueEntry(account.provider)?.stages[stage]?.join(', ');
        problems.push({ loc: [...at, 'model'], msg: `provider ${account.provider} offers no ${stage} model ${JSON.stringify(s.model)} (models: ${models})`, type: 'value_error' });
      }
    }
  }
  if (problems.length) throw errors.validation(problems);
  // Account ids are stored in canonical lower case so that lookups by id always match.
  return Object.fromEntries(stages.map(([stage, s]) => [stage, { ...s, account_id: s.account_id.toLowerCase() }])) as PipelineConfig;
}

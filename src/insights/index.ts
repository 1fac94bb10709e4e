// Post-call insights (spec 2.6 `insights`, agent `insight_config`; docs/insights.md).
export { analyseSession, textModelFor, REALTIME_TEXT_MODELS, RetryInsights, type AnalyseOptions, type AnalyseOutcome } from './analyse.js';
export { insightPlan, type InsightPlan } from './config.js';
export { echoInsights } from './echo.js';
export { coerceField, extractJsonObject, parseInsights, InvalidModelOutput, type ParsedInsights } from './parse.js';
export { insightMessages } from './prompt.js';
export { enqueueInsights, insightsQueue, kickInsights, INSIGHTS_QUEUE, InsightsJobData } from './queue.js';
export { failedInsights, type CallInsightsInfo } from './store.js';
export { storeInsights } from '../db/repos/session-insights.js';
export { startInsightsSweeper, sweepInsightsOnce, PENDING_GRACE_MS } from './sweeper.js';
export { startInsightsWorker, type InsightsWorkerOptions } from './worker.js';

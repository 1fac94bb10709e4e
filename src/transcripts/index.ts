// Stored call transcripts (store_transcript) and their retention (spec 2.10, docs/insights.md).
export { normalizeTranscript, retentionDays, transcriptExpiry } from './store.js';
export { getTranscript, hasTranscript, insertTranscript, readStoredTranscript } from '../db/repos/session-transcripts.js';
export { startTranscriptSweeper, sweepExpiredTranscripts, TRANSCRIPT_SWEEP_INTERVAL_MS, type TranscriptSweepOptions } from './retention.js';

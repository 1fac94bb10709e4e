// Stored call transcripts (store_transcript) and their retention (spec 2.10, docs/insights.md).
export { getTranscript, hasTranscript, insertTranscript, normalizeTranscript, retentionDays, transcriptExpiry } from './store.js';
export { startTranscriptSweeper, sweepExpiredTranscripts, TRANSCRIPT_SWEEP_INTERVAL_MS, type TranscriptSweepOptions } from './retention.js';

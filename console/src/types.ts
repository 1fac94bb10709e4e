// The shapes the console reads (contract §2–§11); only the fields the pages use.

export interface Project {
  id: string;
  name: string;
  api_rpm: number;
  max_concurrent_sessions: number;
  revision: number;
  created_at: string;
}

export interface ProviderAccount {
  id: string;
  provider: string;
  label: string;
  base_url: string | null;
  status: 'unverified' | 'verified' | 'invalid';
  status_detail?: string | null;
  key_hint: string | null;
  revision: number;
  created_at: string;
}

export interface CatalogueEntry {
  provider: string;
  stages: Partial<Record<'stt' | 'llm' | 'tts' | 'realtime', string[]>>;
}

export interface Agent {
  id: string;
  name: string;
  is_active: boolean;
  version: number;
  pipeline_mode: 'cascade' | 'realtime';
  pipeline_config: Record<string, Record<string, unknown>>;
  variables: { name: string; required: boolean }[];
  updated_at: string;
  [field: string]: unknown;
}

export interface VoiceSession {
  id: string;
  agent_id: string | null;
  agent_version: number | null;
  status: 'created' | 'active' | 'completed' | 'failed';
  direction: string;
  language: string;
  connected_seconds: number;
  max_duration_seconds: number;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  media_connected_at: string | null;
  media_disconnected_at: string | null;
  end_reason: string | null;
  store_transcript: boolean;
  record: boolean;
  metadata: Record<string, unknown> | null;
  insights?: { status?: string; summary?: string | null; data?: Record<string, unknown> | null; [k: string]: unknown } | null;
  recording_ref?: { provider: string; reference_id: string | null; url: string | null; fetched_from: string; detail?: string } | null;
  rate_nano_usd_per_min: string;
  hold_nano_usd: string;
  cost_nano_usd: string;
}

export interface TranscriptEntry {
  role: 'user' | 'assistant' | 'tool';
  text: string;
  start_ms: number;
  end_ms: number;
  interrupted?: boolean;
}

export interface WebhookEndpoint {
  id: string;
  name: string;
  url: string;
  event_types: string[];
  status: 'active' | 'disabled';
  revision: number;
  secret_hint: string;
  created_at: string;
}

export interface WebhookDelivery {
  id: string;
  webhook_id: string;
  kind: 'endpoint' | 'agent';
  endpoint_id: string | null;
  agent_id?: string | null;
  event_type: string;
  url: string;
  status: 'pending' | 'sending' | 'delivered' | 'dead' | 'cancelled';
  attempts: number;
  max_attempts: number;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
}

export interface DeadLetter {
  id: string;
  kind: 'endpoint' | 'agent';
  attempts: number;
  max_attempts: number;
  endpoint_id?: string | null;
  event_type?: string | null;
  last_error?: string | null;
  created_at: string;
  updated_at: string;
}

export interface CarrierInfo {
  id: string;
  kind: 'twilio' | 'telnyx';
  label: string;
  base_url: string | null;
  account_sid?: string;
  token_hint: string;
  status: 'unverified' | 'verified' | 'invalid';
  status_detail: string | null;
  revision: number;
  created_at: string;
}

export interface CarrierNumber {
  id: string;
  carrier_id: string;
  e164: string;
  outbound_enabled: boolean;
  agent_id: string | null;
  /** Added by the carrier-config work; shown when the service sends them. */
  voice_url?: string;
  carrier_configured?: boolean;
  carrier_error?: string | null;
  created_at: string;
}

export type CampaignStatus = 'running' | 'paused' | 'canceled' | 'completed';
export type CampaignRowState = 'queued' | 'in_progress' | 'retrying' | 'completed' | 'failed' | 'canceled';

export interface CampaignCounters {
  total: number;
  queued: number;
  in_progress: number;
  retrying: number;
  completed: number;
  failed: number;
  canceled: number;
}

export interface CallingWindow {
  days: string[];
  start: string;
  end: string;
}

export interface Campaign {
  id: string;
  name: string;
  agent_id: string;
  status: CampaignStatus;
  from_numbers: string[];
  max_concurrent_calls: number;
  timezone: string;
  calling_windows: CallingWindow[];
  retry: { max_attempts: number; min_spacing_seconds: number; on: string[] };
  counters: CampaignCounters;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

export interface CampaignRow {
  index: number;
  to: string;
  timezone: string;
  state: CampaignRowState;
  attempts: number;
  next_attempt_at: string | null;
  outcome: string | null;
  last_error: string | null;
  results: { attempt: number; session_id: string; from: string; status: string; end_reason: string | null; created_at: string }[];
}

export interface CampaignDetail extends Campaign {
  rows: CampaignRow[];
}

import type { RequestOptions } from '../http.js';
import type { ListOptions } from '../paginate.js';
import type {
  CreateOutboundVoiceSessionRequest,
  CreateOutboundVoiceSessionResponse,
  CreateVoiceSessionRequest,
  CreateVoiceSessionResponse,
  SessionListQuery,
  ResponseOf,
  VoiceSession,
} from '../types.js';
import { Resource, seg } from './base.js';

/** A stored transcript (contract §11): entries with role, text, start/end ms and `interrupted`. */
export type Transcript = ResponseOf<'/v2/voice/sessions/{session_id}/transcript', 'get'>;
export type TranscriptEntry = Transcript['entries'][number];

/** Voice sessions (spec §4.3, §4.4). */
export class Sessions extends Resource {
  list(filters: SessionListQuery = {}, opts?: ListOptions): AsyncGenerator<VoiceSession, void, undefined> {
    return this.paged<VoiceSession>('/voice/sessions', { ...filters }, opts);
  }
  /** Admits a media session; hand only `ws_url` to the client that streams audio. */
  create(body: CreateVoiceSessionRequest, opts?: RequestOptions): Promise<CreateVoiceSessionResponse> {
    return this.call('POST', '/voice/sessions', opts, body);
  }
  get(sessionId: string, opts?: RequestOptions): Promise<VoiceSession> {
    return this.call('GET', `/voice/sessions/${seg(sessionId)}`, opts);
  }
  /** Queues an outbound call; a repeat with the same idempotency key answers the first call. */
  createOutbound(body: CreateOutboundVoiceSessionRequest, opts?: RequestOptions): Promise<CreateOutboundVoiceSessionResponse> {
    return this.call('POST', '/voice/sessions/outbound', opts, body);
  }
  transcript(sessionId: string, opts?: RequestOptions): Promise<Transcript> {
    return this.call('GET', `/voice/sessions/${seg(sessionId)}/transcript`, opts);
  }
}

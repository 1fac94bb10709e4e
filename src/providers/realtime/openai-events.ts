import { z } from 'zod';

// The OpenAI Realtime server events that the session maps, as documented. Only these types are
// parsed (any other is skipped on its `type` alone). Extra fields are ignored; a field read with
// a default (`?? 0`) may be null or absent; codes and metadata stay `unknown` for safeCode and
// stringMap. An event of a listed type that does not match is a protocol error.

const ids = { response_id: z.string(), item_id: z.string() };
const maybe = z.unknown().optional();

export const ServerEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('session.created') }),
  z.object({ type: z.literal('session.updated') }),
  z.object({ type: z.literal('input_audio_buffer.speech_started'), item_id: z.string(), audio_start_ms: z.number().nullish() }),
  z.object({ type: z.literal('input_audio_buffer.speech_stopped'), item_id: z.string(), audio_end_ms: z.number().nullish() }),
  z.object({ type: z.literal('conversation.item.input_audio_transcription.completed'), item_id: z.string(), transcript: z.string().nullish() }),
  z.object({ type: z.literal('response.created'), response: z.object({ id: z.string(), metadata: maybe }) }),
  // `delta` is base64 PCM: checked as a string only, decoded once by the session.
  z.object({ type: z.literal('response.output_audio.delta'), ...ids, content_index: z.number().nullish(), delta: z.string() }),
  z.object({ type: z.literal('response.output_audio_transcript.delta'), ...ids, delta: z.string().nullish() }),
  z.object({ type: z.literal('response.output_audio_transcript.done'), ...ids, transcript: z.string().nullish() }),
  // Any kind of item; only a function_call item is read (FunctionCallItem).
  z.object({ type: z.literal('response.output_item.done'), response_id: z.string(), item: z.looseObject({ type: maybe }).nullish() }),
  z.object({
    type: z.literal('response.done'),
    response: z.object({
      id: z.string(),
      status: z.string().nullish(),
      usage: z.object({ input_tokens: z.number().nullish(), output_tokens: z.number().nullish() }).nullish(),
      status_details: z.object({ reason: maybe, error: z.object({ code: maybe, type: maybe }).nullish() }).nullish(),
      metadata: maybe,
    }),
  }),
  z.object({ type: z.literal('error'), error: z.object({ code: maybe, type: maybe, event_id: maybe }).nullish() }),
]);
export type ServerEvent = z.infer<typeof ServerEvent>;

export const FunctionCallItem = z.object({ id: z.string(), call_id: z.string(), name: z.string(), arguments: z.string().nullish() });

const MAPPED: ReadonlySet<unknown> = new Set(ServerEvent.options.map((o) => o.shape.type.value));

/** A type the session maps (anything else is ignored without parsing the event). */
export const isMappedType = (type: unknown): type is ServerEvent['type'] => MAPPED.has(type);

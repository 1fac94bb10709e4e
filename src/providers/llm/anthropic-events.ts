import { z } from 'zod';

// The Anthropic Messages stream events that the adapter maps, as documented. Only these types
// are parsed (any other is skipped on its type alone: Anthropic's versioning policy allows new
// ones). Extra fields are ignored; a field read with a default may be null or absent. Blocks and
// deltas are read per kind (below), so a block or delta of a new kind does not fail the event.

const maybe = z.unknown().optional();
const kind = z.looseObject({ type: maybe });

export const StreamEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ping') }),
  z.object({
    type: z.literal('message_start'),
    message: z.object({ usage: z.object({ input_tokens: z.number().nullish(), output_tokens: z.number().nullish() }).nullish() }).nullish(),
  }),
  z.object({ type: z.literal('content_block_start'), index: z.number(), content_block: kind.nullish() }),
  z.object({ type: z.literal('content_block_delta'), index: z.number(), delta: kind.nullish() }),
  z.object({ type: z.literal('content_block_stop'), index: z.number() }),
  // Token counts that are not numbers are skipped (the counts so far stand).
  z.object({ type: z.literal('message_delta'), delta: z.object({ stop_reason: z.string().nullish() }).nullish(), usage: z.object({ input_tokens: maybe, output_tokens: maybe }).nullish() }),
  z.object({ type: z.literal('message_stop') }),
  z.object({ type: z.literal('error'), error: maybe }),
]);
export type StreamEvent = z.infer<typeof StreamEvent>;

export const TextBlock = z.object({ text: z.string().nullish() });
export const ToolUseBlock = z.object({ id: z.string(), name: z.string() });
export const TextDelta = z.object({ text: z.string().nullish() });
export const JsonDelta = z.object({ partial_json: z.string().nullish() });

const MAPPED: ReadonlySet<unknown> = new Set(StreamEvent.options.map((o) => o.shape.type.value));

/** A type the adapter maps (anything else is ignored without parsing the event). */
export const isMappedType = (type: unknown): type is StreamEvent['type'] => MAPPED.has(type);

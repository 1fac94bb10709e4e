import type { LlmTool } from '../providers/types.js';
import type { CallAgent } from './call-config.js';

// The tools a call's model sees (contract §4): the agent's own, answered by its
// tool_webhook_url, plus the built-ins `end_call` and, with can_send_dtmf, `send_dtmf`.

export const END_CALL = 'end_call';
export const SEND_DTMF = 'send_dtmf';
export const DTMF_DIGITS = /^[0-9*#A-Da-d]{1,32}$/;

export function toolsFor(agent: CallAgent): LlmTool[] {
  const tools: LlmTool[] = agent.tools.map((t) => ({
    name: t.name,
    description: t.description,
    parameters: t.parameters ?? { type: 'object', properties: {} },
  }));
  tools.push({
    name: END_CALL,
    description: 'End the phone call. Say goodbye first, in the same answer.',
    parameters: { type: 'object', properties: {} },
  });
  if (agent.canSendDtmf) {
    tools.push({
      name: SEND_DTMF,
      description: 'Press keys on the phone keypad (DTMF), for example to navigate a phone menu.',
      parameters: {
        type: 'object',
        properties: { digits: { type: 'string', description: 'Keys to press: 0-9, *, #, A-D' } },
        required: ['digits'],
      },
    });
  }
  return tools;
}

/** The arguments a model wrote, as an object; null when they are not a JSON object. */
export function parseArguments(text: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(text || '{}') as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Runs a customer tool (the signed `tool.call` webhook); never throws. */
export type ToolRunner = (tool: string, args: unknown, signal: AbortSignal) => Promise<{ ok: true; result: unknown } | { ok: false; error: string }>;

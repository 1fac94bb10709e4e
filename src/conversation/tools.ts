import { dtmfGenerate } from '../audio/native.js';
import type { LlmTool, LlmToolCall } from '../providers/types.js';
import type { CallAgent } from './call-config.js';
import { TRANSFER_CALL, transferTool } from './transfer-tool.js';

// The tools a call's model sees (contract §4): the agent's own, answered by its
// tool_webhook_url, plus the built-ins `end_call` and, with can_send_dtmf, `send_dtmf`; and
// how a call of the model's is run (both engines, but end_call is each engine's own).

export const END_CALL = 'end_call';
const SEND_DTMF = 'send_dtmf';
const DTMF_DIGITS = /^[0-9*#A-Da-d]{1,32}$/;

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
  if (agent.transferDestinations?.length) tools.push(transferTool(agent.transferDestinations));
  return tools;
}

/** The arguments a model wrote, as an object; null when they are not a JSON object. */
function parseArguments(text: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(text || '{}') as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Runs a customer tool (the signed `tool.call` webhook); never throws. */
export type ToolRunner = (tool: string, args: unknown, signal: AbortSignal) => Promise<{ ok: true; result: unknown } | { ok: false; error: string }>;

export interface ToolCallEnv {
  agent: CallAgent;
  runTool: ToolRunner | null;
  signal: AbortSignal;
  /** The agent's output rate, for send_dtmf's tones. */
  rateHz: number;
  /** Plays send_dtmf's tones in the agent's audio (so they reach a phone line too). */
  play: (tones: Int16Array[]) => void;
  /** Runs transfer_call (phone calls whose agent lists transfer_destinations). */
  transfer?: (args: Record<string, unknown> | null) => Promise<string>;
}

/** Runs one of the model's tool calls other than end_call; returns the tool message's content. */
export async function runToolCall(call: LlmToolCall, env: ToolCallEnv): Promise<string> {
  const args = parseArguments(call.arguments);
  if (call.name === SEND_DTMF && env.agent.canSendDtmf) {
    const digits = typeof args?.digits === 'string' ? args.digits : '';
    if (!DTMF_DIGITS.test(digits)) return JSON.stringify({ error: 'digits must be 1-32 of 0-9, *, #, A-D' });
    env.play([...digits].map((d) => dtmfGenerate(d.toUpperCase(), { sampleRateHz: env.rateHz })));
    return JSON.stringify({ result: `pressed ${digits}` });
  }
  if (call.name === TRANSFER_CALL && env.transfer && env.agent.transferDestinations?.length) return env.transfer(args);
  if (!env.agent.tools.some((t) => t.name === call.name)) return JSON.stringify({ error: `unknown tool ${call.name}` });
  if (!env.runTool || !env.agent.toolWebhookUrl) return JSON.stringify({ error: 'the tool is not available' });
  if (args === null) return JSON.stringify({ error: 'arguments must be a JSON object' });
  const res = await env.runTool(call.name, args, env.signal);
  return JSON.stringify(res.ok ? { result: res.result } : { error: `the tool failed: ${res.error}` });
}

// Agent tools answered by the customer's tool webhook (contract §4, §7).
export {
  callToolWebhook,
  TOOL_RESPONSE_MAX_BYTES,
  TOOL_WEBHOOK_TIMEOUT_MS,
  type ToolWebhookOptions,
  type ToolWebhookRequest,
  type ToolWebhookResult,
} from './tool-webhook.js';

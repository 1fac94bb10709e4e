import type { RequestOptions } from '../http.js';
import type { ListOptions } from '../paginate.js';
import type {
  CreatedWebhookEndpoint,
  CreateWebhookEndpointRequest,
  DeadLetter,
  DeliveryListQuery,
  ReplayResult,
  UpdateWebhookEndpointRequest,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookTestResult,
} from '../types.js';
import { Resource, seg } from './base.js';

/** A project's webhook endpoints (spec §4.5, §4.6); `base` ends at the project. */
export class Webhooks extends Resource {
  list(opts: ListOptions & { includeDisabled?: boolean } = {}): AsyncGenerator<WebhookEndpoint, void, undefined> {
    const { includeDisabled, ...rest } = opts;
    return this.paged<WebhookEndpoint>('/webhooks', { include_disabled: includeDisabled }, rest);
  }
  /** The answer is the only time the signing secret is shown. */
  create(body: CreateWebhookEndpointRequest, opts?: RequestOptions): Promise<CreatedWebhookEndpoint> {
    return this.call('POST', '/webhooks', opts, body);
  }
  /**
   * Changes the fields sent (name, url, event_types, status) in place; the signing secret stays.
   * `status: 'active'` enables a disabled endpoint again; `'disabled'` works as `disable`.
   */
  update(endpointId: string, body: UpdateWebhookEndpointRequest, opts?: RequestOptions): Promise<WebhookEndpoint> {
    return this.call('PATCH', `/webhooks/${seg(endpointId)}`, opts, body);
  }
  /** Disables the endpoint and cancels its queued deliveries. */
  disable(endpointId: string, opts?: RequestOptions): Promise<WebhookEndpoint> {
    return this.call('DELETE', `/webhooks/${seg(endpointId)}`, opts);
  }
  /** Queues a signed `webhook.ping`. */
  test(endpointId: string, opts?: RequestOptions): Promise<WebhookTestResult> {
    return this.call('POST', `/webhooks/${seg(endpointId)}/test`, opts);
  }
  /** Deliveries that exhausted their retries (one page of at most `limit`). */
  deadLetters(opts: RequestOptions & { limit?: number } = {}): Promise<DeadLetter[]> {
    const { limit, ...rest } = opts;
    return this.call('GET', '/webhooks/dead-letters', rest, undefined, { limit });
  }
  /** The delivery log with attempts, newest first (filter by endpoint, session or status). */
  deliveries(filters: DeliveryListQuery = {}, opts?: ListOptions): AsyncGenerator<WebhookDelivery, void, undefined> {
    return this.paged<WebhookDelivery>('/webhooks/deliveries', { ...filters }, opts);
  }
  /** Queues a dead letter of the endpoint again: a new delivery with the same `webhook-id`. */
  replay(endpointId: string, deliveryId: string, opts?: RequestOptions): Promise<ReplayResult> {
    return this.call('POST', `/webhooks/${seg(endpointId)}/dead-letters/${seg(deliveryId)}/replay`, opts);
  }
}

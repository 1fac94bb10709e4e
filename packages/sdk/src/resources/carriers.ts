import type { RequestOptions } from '../http.js';
import type { ListOptions } from '../paginate.js';
import type { Carrier, CarrierCreate, CarrierUpdate, IncomingNumber, IncomingNumbersPage, PhoneNumber, PhoneNumberCreate, PhoneNumberUpdate } from '../types.js';
import { Resource, seg } from './base.js';

// Carrier connections (Twilio, Telnyx) of one project and their phone numbers (console door).

/** Options of one page of the carrier account's own numbers (the carrier's paging, not limit/offset). */
export interface IncomingNumbersOptions extends RequestOptions {
  /** 1–100, default 50. */
  pageSize?: number;
  /** `next_page_token` of the previous page. */
  pageToken?: string;
}

export class Numbers extends Resource {
  list(opts?: ListOptions): AsyncGenerator<PhoneNumber, void, undefined> {
    return this.paged<PhoneNumber>('/numbers', {}, opts);
  }
  /** With `agent_id`, the number's voice URL is set at the carrier. */
  create(body: PhoneNumberCreate, opts?: RequestOptions): Promise<PhoneNumber> {
    return this.call('POST', '/numbers', opts, body);
  }
  get(numberId: string, opts?: RequestOptions): Promise<PhoneNumber> {
    return this.call('GET', `/numbers/${seg(numberId)}`, opts);
  }
  update(numberId: string, body: PhoneNumberUpdate, opts?: RequestOptions): Promise<PhoneNumber> {
    return this.call('PATCH', `/numbers/${seg(numberId)}`, opts, body);
  }
  /** Removes the number; its previous settings are put back at the carrier. */
  delete(numberId: string, opts?: RequestOptions): Promise<PhoneNumber> {
    return this.call('DELETE', `/numbers/${seg(numberId)}`, opts);
  }
  /** Applies the number's configuration at the carrier again. */
  sync(numberId: string, opts?: RequestOptions): Promise<PhoneNumber> {
    return this.call('POST', `/numbers/${seg(numberId)}/sync`, opts);
  }
}

export class Carriers extends Resource {
  list(opts?: ListOptions): AsyncGenerator<Carrier, void, undefined> {
    return this.paged<Carrier>('/carriers', {}, opts);
  }
  /** The auth token or API key sent is never shown again. */
  create(body: CarrierCreate, opts?: RequestOptions): Promise<Carrier> {
    return this.call('POST', '/carriers', opts, body);
  }
  get(carrierId: string, opts?: RequestOptions): Promise<Carrier> {
    return this.call('GET', `/carriers/${seg(carrierId)}`, opts);
  }
  update(carrierId: string, body: CarrierUpdate, opts?: RequestOptions): Promise<Carrier> {
    return this.call('PATCH', `/carriers/${seg(carrierId)}`, opts, body);
  }
  /** 409 while the connection has numbers. */
  delete(carrierId: string, opts?: RequestOptions): Promise<Carrier> {
    return this.call('DELETE', `/carriers/${seg(carrierId)}`, opts);
  }
  /** One live, read-only call to the carrier; sets `verified` or `invalid`. */
  verify(carrierId: string, opts?: RequestOptions): Promise<Carrier> {
    return this.call('POST', `/carriers/${seg(carrierId)}/verify`, opts);
  }
  /** The phone numbers of one carrier connection. */
  numbers(carrierId: string): Numbers {
    return new Numbers(this.http, `${this.base}/carriers/${seg(carrierId)}`);
  }
  /** One page of the numbers the carrier account holds, for import. */
  incomingNumbers(carrierId: string, opts: IncomingNumbersOptions = {}): Promise<IncomingNumbersPage> {
    const { pageSize, pageToken, ...rest } = opts;
    return this.call('GET', `/carriers/${seg(carrierId)}/incoming-numbers`, rest, undefined, { page_size: pageSize, page_token: pageToken });
  }
  /** Every number the carrier account holds, following `next_page_token`. */
  async *allIncomingNumbers(carrierId: string, opts: Omit<IncomingNumbersOptions, 'pageToken'> = {}): AsyncGenerator<IncomingNumber, void, undefined> {
    let pageToken: string | undefined;
    do {
      const page = await this.incomingNumbers(carrierId, { ...opts, pageToken });
      yield* page.numbers;
      pageToken = page.next_page_token ?? undefined;
    } while (pageToken);
  }
}

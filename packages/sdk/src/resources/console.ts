import type { RequestOptions } from '../http.js';
import type { ListOptions } from '../paginate.js';
import type {
  ApiKey,
  ApiKeyCreate,
  Carrier,
  CarrierCreate,
  CarrierUpdate,
  CreatedApiKey,
  CreatedPublishableKey,
  LedgerEntry,
  PhoneNumber,
  PhoneNumberCreate,
  PhoneNumberUpdate,
  ProviderAccount,
  ProviderAccountCreate,
  ProviderAccountUpdate,
  PublishableKey,
  PublishableKeyCreate,
  Wallet,
} from '../types.js';
import { Resource, seg } from './base.js';

// Console-door-only resources of one project (contract §2, §3, §6, §10); `base` ends at the project.

export class ApiKeys extends Resource {
  list(opts?: ListOptions): AsyncGenerator<ApiKey, void, undefined> {
    return this.paged<ApiKey>('/api-keys', {}, opts);
  }
  /** `key` is shown once. */
  create(body: ApiKeyCreate, opts?: RequestOptions): Promise<CreatedApiKey> {
    return this.call('POST', '/api-keys', opts, body);
  }
  revoke(keyId: string, opts?: RequestOptions): Promise<ApiKey> {
    return this.call('DELETE', `/api-keys/${seg(keyId)}`, opts);
  }
}

export class PublishableKeys extends Resource {
  list(opts?: ListOptions): AsyncGenerator<PublishableKey, void, undefined> {
    return this.paged<PublishableKey>('/publishable-keys', {}, opts);
  }
  create(body: PublishableKeyCreate, opts?: RequestOptions): Promise<CreatedPublishableKey> {
    return this.call('POST', '/publishable-keys', opts, body);
  }
  revoke(keyId: string, opts?: RequestOptions): Promise<PublishableKey> {
    return this.call('DELETE', `/publishable-keys/${seg(keyId)}`, opts);
  }
  rotate(keyId: string, opts?: RequestOptions): Promise<CreatedPublishableKey> {
    return this.call('POST', `/publishable-keys/${seg(keyId)}/rotate`, opts);
  }
}

export class ProviderAccounts extends Resource {
  list(opts?: ListOptions): AsyncGenerator<ProviderAccount, void, undefined> {
    return this.paged<ProviderAccount>('/provider-accounts', {}, opts);
  }
  create(body: ProviderAccountCreate, opts?: RequestOptions): Promise<ProviderAccount> {
    return this.call('POST', '/provider-accounts', opts, body);
  }
  get(accountId: string, opts?: RequestOptions): Promise<ProviderAccount> {
    return this.call('GET', `/provider-accounts/${seg(accountId)}`, opts);
  }
  update(accountId: string, body: ProviderAccountUpdate, opts?: RequestOptions): Promise<ProviderAccount> {
    return this.call('PATCH', `/provider-accounts/${seg(accountId)}`, opts, body);
  }
  delete(accountId: string, opts?: RequestOptions): Promise<unknown> {
    return this.call('DELETE', `/provider-accounts/${seg(accountId)}`, opts);
  }
  /** One live, cheap call to the provider; sets `verified` or `invalid`. */
  verify(accountId: string, opts?: RequestOptions): Promise<ProviderAccount> {
    return this.call('POST', `/provider-accounts/${seg(accountId)}/verify`, opts);
  }
}

export class WalletResource extends Resource {
  get(opts?: RequestOptions): Promise<Wallet> {
    return this.call('GET', '/wallet', opts);
  }
  ledger(opts?: ListOptions): AsyncGenerator<LedgerEntry, void, undefined> {
    return this.paged<LedgerEntry>('/wallet/ledger', {}, opts);
  }
}

export class Numbers extends Resource {
  list(opts?: ListOptions): AsyncGenerator<PhoneNumber, void, undefined> {
    return this.paged<PhoneNumber>('/numbers', {}, opts);
  }
  create(body: PhoneNumberCreate, opts?: RequestOptions): Promise<PhoneNumber> {
    return this.call('POST', '/numbers', opts, body);
  }
  get(numberId: string, opts?: RequestOptions): Promise<PhoneNumber> {
    return this.call('GET', `/numbers/${seg(numberId)}`, opts);
  }
  update(numberId: string, body: PhoneNumberUpdate, opts?: RequestOptions): Promise<PhoneNumber> {
    return this.call('PATCH', `/numbers/${seg(numberId)}`, opts, body);
  }
  delete(numberId: string, opts?: RequestOptions): Promise<unknown> {
    return this.call('DELETE', `/numbers/${seg(numberId)}`, opts);
  }
}

export class Carriers extends Resource {
  list(opts?: ListOptions): AsyncGenerator<Carrier, void, undefined> {
    return this.paged<Carrier>('/carriers', {}, opts);
  }
  create(body: CarrierCreate, opts?: RequestOptions): Promise<Carrier> {
    return this.call('POST', '/carriers', opts, body);
  }
  get(carrierId: string, opts?: RequestOptions): Promise<Carrier> {
    return this.call('GET', `/carriers/${seg(carrierId)}`, opts);
  }
  update(carrierId: string, body: CarrierUpdate, opts?: RequestOptions): Promise<Carrier> {
    return this.call('PATCH', `/carriers/${seg(carrierId)}`, opts, body);
  }
  delete(carrierId: string, opts?: RequestOptions): Promise<unknown> {
    return this.call('DELETE', `/carriers/${seg(carrierId)}`, opts);
  }
  verify(carrierId: string, opts?: RequestOptions): Promise<Carrier> {
    return this.call('POST', `/carriers/${seg(carrierId)}/verify`, opts);
  }
  /** The phone numbers of one carrier connection. */
  numbers(carrierId: string): Numbers {
    return new Numbers(this.http, `${this.base}/carriers/${seg(carrierId)}`);
  }
}

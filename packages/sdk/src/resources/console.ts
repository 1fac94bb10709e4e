import type { RequestOptions } from '../http.js';
import type { ListOptions } from '../paginate.js';
import type {
  ApiKey,
  ApiKeyCreate,
  CreatedApiKey,
  CreatedPublishableKey,
  LedgerEntry,
  ProviderAccount,
  ProviderAccountCreate,
  ProviderAccountUpdate,
  PublishableKey,
  PublishableKeyCreate,
  PublishableKeyUpdate,
  Wallet,
} from '../types.js';
import { Resource, seg } from './base.js';

// Console-door-only resources of one project (contract §2, §3, §6, §10); `base` ends at the project.
// Carriers and their numbers are in carriers.ts.

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
  /** Changes name, origins, agents or limits; only the fields sent change. */
  update(keyId: string, body: PublishableKeyUpdate, opts?: RequestOptions): Promise<PublishableKey> {
    return this.call('PATCH', `/publishable-keys/${seg(keyId)}`, opts, body);
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
  /** 409 while an active agent uses it. */
  delete(accountId: string, opts?: RequestOptions): Promise<ProviderAccount> {
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

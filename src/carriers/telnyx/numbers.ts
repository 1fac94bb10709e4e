import { BadCursor, type FoundNumber, type NumberConfigurator } from '../number-config.js';
import type { TelnyxPhoneNumber, TelnyxRestClient } from './rest-client.js';

// Telnyx numbers: a number's calls go to the Call Control application (connection) it is
// assigned to, and that application's webhook is ours. Binding assigns the number to our
// application (PATCH /v2/phone_numbers/{id} {connection_id}); restoring assigns the one before.

const found = (n: TelnyxPhoneNumber): FoundNumber => ({
  number: { ref: n.id, e164: n.phone_number, friendly_name: null, voice_url: n.connection_id, voice_capable: true },
  settings: { connection_id: n.connection_id ?? '' },
});

export function telnyxNumbers(client: TelnyxRestClient): NumberConfigurator {
  return {
    async findNumber(e164) {
      const { numbers } = await client.listPhoneNumbers({ phoneNumber: e164, page: 1, size: 20 });
      const n = numbers.find((x) => x.phone_number === e164);
      return n ? found(n) : null;
    },
    async fetchNumber(ref) {
      const n = await client.getPhoneNumber(ref);
      return n ? found(n) : null;
    },
    pointsAt: (settings, target) => !!target.connectionId && settings.connection_id === target.connectionId,
    async apply(ref, target) {
      if (!target.connectionId) throw new Error('no Call Control application to assign the number to');
      await client.setPhoneNumberConnection(ref, target.connectionId);
    },
    async restore(ref, previous) {
      await client.setPhoneNumberConnection(ref, previous.connection_id || null);
    },
    async listNumbers(pageSize, cursor) {
      if (cursor !== null && !/^[1-9]\d{0,5}$/.test(cursor)) throw new BadCursor('page_token is not one this API gave');
      const page = cursor === null ? 1 : Number(cursor);
      const { numbers, totalPages } = await client.listPhoneNumbers({ page, size: pageSize });
      return { numbers: numbers.map((n) => found(n).number), next: page < totalPages ? String(page + 1) : null };
    },
  };
}

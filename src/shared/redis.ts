import { Redis } from 'ioredis';

export type { Redis };

export function createRedis(url: string): Redis {
  // maxRetriesPerRequest null is what BullMQ requires of connections it shares.
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false });
}

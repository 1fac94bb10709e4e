import { z } from 'zod';
import { paging } from './validation.js';

const money = z.string().regex(/^-?\d+$/);

export const WalletInfo = z.object({
  currency: z.literal('USD'),
  money_scale: z.number().int(),
  balance_nano_usd: money,
  held_nano_usd: money,
  available_nano_usd: money,
});

export const LedgerEntry = z.object({
  id: z.uuid(),
  kind: z.enum(['credit', 'hold', 'release', 'charge']),
  amount_nano_usd: money,
  session_id: z.uuid().nullable(),
  created_at: z.iso.datetime(),
});

export const LedgerQuery = z.strictObject(paging);

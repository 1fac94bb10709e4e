import t from 'tap';
import { createLogger } from '../../src/shared/logger.js';

t.test('secrets and personal data are redacted wherever they appear', async (t) => {
  const lines: string[] = [];
  const log = createLogger('info', 'test', { write: (s: string) => lines.push(s) });
  log.info({ password: 'hunter2hunter2', credentials: { api_key: 'sk-live-123' }, body: { token: 'tok-abc', prompt: 'You are Sam' } }, 'x');
  log.info({ req: { headers: { authorization: 'Bearer abc', 'x-api-key': 'vk_abc' } } }, 'y');
  const text = lines.join('\n');
  for (const secret of ['hunter2hunter2', 'sk-live-123', 'tok-abc', 'You are Sam', 'Bearer abc', 'vk_abc']) t.notMatch(text, secret);
  t.match(text, /\[redacted\]/);
});

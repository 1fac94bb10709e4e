import t from 'tap';
import { settleAttempt } from '../../src/campaigns/outcome.js';

// What an ended attempt makes of its campaign row.
const rules = { max_attempts: 3, retry_on: ['busy', 'no_answer'], retry_spacing_seconds: 60 };
const now = new Date('2026-01-01T00:00:00Z');

t.test('a busy attempt with attempts left is retried after the spacing', async (t) => {
  const s = settleAttempt({ ...rules, status: 'running' }, { attempts: 1, status: 'failed', end_reason: 'busy' }, now);
  t.equal(s.state, 'retrying');
  t.equal(s.nextAttemptAt?.toISOString(), '2026-01-01T00:01:00.000Z');
});

t.test('a canceled campaign does not leave a row waiting for a retry it will never dial', async (t) => {
  const s = settleAttempt({ ...rules, status: 'canceled' }, { attempts: 1, status: 'failed', end_reason: 'no_answer' }, now);
  t.same(s, { state: 'canceled', outcome: 'no_answer', nextAttemptAt: null });
});

t.test('completed completes, attempts used up or other reasons fail', async (t) => {
  t.equal(settleAttempt(rules, { attempts: 1, status: 'completed', end_reason: 'caller_hangup' }, now).state, 'completed');
  t.equal(settleAttempt(rules, { attempts: 3, status: 'failed', end_reason: 'busy' }, now).state, 'failed');
  t.equal(settleAttempt(rules, { attempts: 1, status: 'failed', end_reason: 'carrier_error' }, now).state, 'failed');
  t.equal(settleAttempt(rules, { attempts: 1, status: null, end_reason: null }, now).outcome, 'session_missing');
});

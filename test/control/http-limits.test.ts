import { connect } from 'node:net';
import t from 'tap';
import { startHarness } from '../helpers/harness.js';

// HTTP limits on the api port, over a real socket (inject bypasses Node's parser): a body
// dribbled slower than HTTP_REQUEST_TIMEOUT_MS is cut with a 408, an oversized header block gets
// a 431, and both answer in the contract's {"detail": ...} shape.

const h = await startHarness({ env: { HTTP_REQUEST_TIMEOUT_MS: '1000' } });
t.teardown(h.close);
await h.app.listen({ port: 0, host: '127.0.0.1' });
const { port } = h.app.server.address() as { port: number };

/** Writes `head`, then one byte every `dribbleMs` until the server answers; resolves with what it answered. */
function exchange(head: string, dribbleMs = 0): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    let timer: NodeJS.Timeout | undefined;
    socket.on('data', (d) => (answer += d.toString()));
    socket.on('close', () => {
      clearInterval(timer);
      resolve(answer);
    });
    socket.on('error', (err) => (answer ? undefined : reject(err)));
    socket.write(head);
    if (dribbleMs) timer = setInterval(() => socket.writable && socket.write('x'), dribbleMs);
  });
}

const statusOf = (answer: string) => Number(answer.split(' ')[1]);
const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as unknown;

t.test('a body dribbled slower than the request timeout is cut with a 408 in the error shape', async (t) => {
  const started = Date.now();
  const answer = await exchange('POST /console/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{', 200);
  t.equal(statusOf(answer), 408);
  t.same(bodyOf(answer), { detail: 'request not received in time' });
  t.ok(Date.now() - started < 10_000, 'the connection was cut, not left open');
});

t.test('a 100 KB header block is a 431 in the error shape', async (t) => {
  const answer = await exchange(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(100_000)}\r\n\r\n`);
  t.equal(statusOf(answer), 431);
  t.same(bodyOf(answer), { detail: 'request headers too large' });
});

t.test('bytes that are not HTTP are a 400 in the error shape', async (t) => {
  const answer = await exchange('HELLO THERE\r\n\r\n');
  t.equal(statusOf(answer), 400);
  t.same(bodyOf(answer), { detail: 'malformed HTTP request' });
});

t.test('a request that arrives in time is served', async (t) => {
  const res = await fetch(`http://127.0.0.1:${port}/healthz`);
  t.equal(res.status, 200);
});

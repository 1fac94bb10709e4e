// Bench receiver, in its own process: counts deliveries, checks every signature (node:crypto,
// plus the standardwebhooks package on a sample) and measures event → receipt latency.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

const secret = process.env.BENCH_SECRET!;
const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
const reference = new Webhook(secret);
let count = 0;
let bad = 0;
let latencies: number[] = [];
const ids = new Set<string>();

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const receivedAt = Date.now();
    const body = Buffer.concat(chunks).toString('utf8');
    const id = String(req.headers['webhook-id']);
    const ts = String(req.headers['webhook-timestamp']);
    const sig = String(req.headers['webhook-signature']);
    const expected = `v1,${createHmac('sha256', key).update(`${id}.${ts}.${body}`).digest('base64')}`;
    let ok = sig.length === expected.length && timingSafeEqual(Buffer.from(sig), Buffer.from(expected));
    if (ok && count % 100 === 0) {
      try {
        reference.verify(body, { 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': sig });
      } catch {
        ok = false;
      }
    }
    if (!ok) bad++;
    count++;
    ids.add(id);
    latencies.push(receivedAt - Date.parse((JSON.parse(body) as { timestamp: string }).timestamp));
    res.writeHead(204);
    res.end();
  });
});
server.keepAliveTimeout = 60_000;

process.on('message', (msg: { cmd: string }) => {
  if (msg.cmd === 'reset') {
    count = 0;
    bad = 0;
    latencies = [];
    ids.clear();
    process.send!({ cmd: 'reset' });
  } else if (msg.cmd === 'count') {
    process.send!({ cmd: 'count', count });
  } else if (msg.cmd === 'stats') {
    process.send!({ cmd: 'stats', count, unique: ids.size, bad, latencies });
  } else if (msg.cmd === 'exit') {
    server.close();
    process.exit(0);
  }
});

server.listen(0, '127.0.0.1', () => process.send!({ cmd: 'ready', port: (server.address() as AddressInfo).port }));

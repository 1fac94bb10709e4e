// The attacker, in its own process: CONNECTIONS loops of wrong-password logins for DURATION_MS.
// `one`: one address, one victim account. `many`: each loop its own address and victim.
const port = Number(process.env.BENCH_PORT);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const durationMs = Number(process.env.BENCH_FLOOD_MS ?? 15_000);
const shape = process.env.BENCH_FLOOD ?? 'one';
const until = Date.now() + durationMs;
const counts: Record<string, number> = {};

async function loop(i: number): Promise<void> {
  const address = shape === 'one' ? '198.18.0.1' : `198.18.1.${i + 1}`;
  const email = shape === 'one' ? 'victim@example.com' : `victim${i}@example.com`;
  while (Date.now() < until) {
    const res = await fetch(`http://127.0.0.1:${port}/console/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
      body: JSON.stringify({ email, password: `guess-${Math.random()}` }),
    });
    await res.arrayBuffer();
    counts[res.status] = (counts[res.status] ?? 0) + 1;
  }
}
await Promise.all(Array.from({ length: connections }, (_, i) => loop(i)));
process.send?.({ counts });

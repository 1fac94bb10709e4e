// The C load client (load-client.c, built by run.ts into BENCH_NATIVE_CLIENT) behind the same
// IPC as load-client.ts: this process only relays commands and lines, and idles while the C
// client runs the load. Web sessions only (carrier runs use load-client.ts).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { ClientStats, ToChild } from './ipc.js';

const proc = spawn(process.env.BENCH_NATIVE_CLIENT!, [], { stdio: ['pipe', 'pipe', 'inherit'] });
proc.on('exit', (code) => process.exit(code ?? 1));

createInterface({ input: proc.stdout }).on('line', (line) => {
  if (line.startsWith('done ')) process.send!({ type: 'done', stats: JSON.parse(line.slice(5)) as ClientStats });
  else process.send!({ type: line });
});

process.on('message', (m: ToChild) => {
  if (m.cmd === 'start') {
    if (m.carrier) throw new Error('the C load client drives web sessions only');
    const targets = m.urls.map((url) => {
      const u = new URL(url);
      return `${u.hostname} ${u.port} ${u.pathname}${u.search}\n`;
    });
    proc.stdin.write(`start ${m.warmupMs} ${m.measureMs} ${m.urls.length}\n${targets.join('')}`);
  } else if (m.cmd === 'hangup') proc.stdin.write('hangup\n');
  else if (m.cmd === 'exit') proc.stdin.end('exit\n');
});

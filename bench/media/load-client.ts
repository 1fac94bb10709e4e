// The load client (load-client.c, built by run.ts into BENCH_CLIENT_BIN) behind the
// benchmark's IPC: this process only relays commands and lines, and idles while the C client
// runs the load. Carrier sessions get their pre-masked opening and `media` frames from here.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { carrierFrames } from './carrier-frames.js';
import type { ClientStats, ToChild } from './ipc.js';

const proc = spawn(process.env.BENCH_CLIENT_BIN!, [], { stdio: ['pipe', 'pipe', 'inherit'] });
proc.on('exit', (code) => process.exit(code ?? 1));

createInterface({ input: proc.stdout }).on('line', (line) => {
  if (line.startsWith('done ')) process.send!({ type: 'done', stats: JSON.parse(line.slice(5)) as ClientStats });
  else process.send!({ type: line });
});

process.on('message', (m: ToChild) => {
  if (m.cmd === 'start') {
    const targets = m.urls.map((url, i) => {
      const u = new URL(url);
      const target = `${u.hostname} ${u.port} ${u.pathname}${u.search}`;
      const c = m.carrier?.[i];
      if (!c) return `${target}\n`;
      const f = carrierFrames(c, i);
      return `${target} ${f.hello.toString('base64')} ${f.media.toString('base64')} ${f.markAt}\n`;
    });
    proc.stdin.write(`start ${m.warmupMs} ${m.measureMs} ${m.urls.length}\n${targets.join('')}`);
  } else if (m.cmd === 'hangup') proc.stdin.write('hangup\n');
  else if (m.cmd === 'exit') proc.stdin.end('exit\n');
});

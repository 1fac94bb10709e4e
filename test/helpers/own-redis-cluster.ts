import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort } from '../../scripts/free-port.js';

// A Redis Cluster of the test's own: `masters` redis-server processes with --cluster-enabled on
// free ports, joined by `redis-cli --cluster create` (no replicas), no persistence.

const run = promisify(execFile);

export interface OwnRedisCluster {
  ports: number[];
  /** REDIS_CLUSTER_NODES */
  nodes: string;
  /** Every key of every master gone (teardown: the harness's own cleanup runs one KEYS on one node). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

async function startNode(port: number, dir: string): Promise<ChildProcess> {
  const proc = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-config-file', join(dir, `nodes-${port}.conf`), '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('Ready to accept connections')) resolve();
    });
    proc.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${out.slice(-500)}`)));
  });
  return proc;
}

export async function startOwnRedisCluster(masters = 3): Promise<OwnRedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'own-redis-cluster-'));
  const ports: number[] = [];
  for (let i = 0; i < masters; i++) ports.push(await freePort());
  const procs = await Promise.all(ports.map((p) => startNode(p, dir)));
  await run('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes']);
  // Every node must agree the cluster is up before clients connect.
  for (const port of ports) {
    const r = new Redis(port, '127.0.0.1');
    for (let i = 0; !(await r.cluster('INFO')).includes('cluster_state:ok'); i++) {
      if (i > 100) throw new Error(`cluster node ${port} never reached cluster_state:ok`);
      await new Promise((res) => setTimeout(res, 100));
    }
    r.disconnect();
  }
  return {
    ports,
    nodes: ports.map((p) => `127.0.0.1:${p}`).join(','),
    flush: async () => {
      for (const port of ports) {
        const r = new Redis(port, '127.0.0.1');
        await r.flushall();
        r.disconnect();
      }
    },
    close: async () => {
      await Promise.all(procs.map((p) => new Promise<void>((resolve) => (p.exitCode !== null ? resolve() : (p.once('exit', () => resolve()), p.kill('SIGKILL'))))));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

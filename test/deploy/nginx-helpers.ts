import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { delimiter, join } from 'node:path';

// Debian's nginx run by a test on deploy/nginx.conf: the template rendered the way envsubst
// renders it for the official nginx image, wrapped in a main configuration whose pid, logs and
// temporary files live in the test's own directory, in the foreground (daemon off).

export const NGINX_TEMPLATE = new URL('../../deploy/nginx.conf', import.meta.url);

/** nginx on PATH or in the sbin directories (Debian installs /usr/sbin/nginx); NGINX_BIN wins. */
export function findNginx(): string | undefined {
  if (process.env.NGINX_BIN) return process.env.NGINX_BIN;
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin', '/sbin'];
  for (const dir of dirs.filter(Boolean)) {
    const file = join(dir, 'nginx');
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The ${NAME} variables a template uses (nginx's own $lower_case variables are not among them). */
export function templateVariables(template: string): string[] {
  return [...new Set([...template.matchAll(/\$\{([A-Z_][A-Z0-9_]*)\}/g)].map((m) => m[1]))].sort();
}

/** envsubst for the template's ${NAME}s; every one must be given (a leftover would reach nginx). */
export function renderTemplate(template: string, vars: Record<string, string | number>): string {
  const missing = templateVariables(template).filter((name) => vars[name] === undefined);
  if (missing.length) throw new Error(`no value for ${missing.join(', ')}`);
  return template.replace(/\$\{([A-Z_][A-Z0-9_]*)\}/g, (_, name: string) => String(vars[name]));
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A self-signed certificate for 127.0.0.1 and localhost, made with openssl in `dir`. */
export function selfSignedCertificate(dir: string): { cert: string; key: string } {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  // prettier-ignore
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  return { cert, key };
}

export interface RunningNginx {
  child: ChildProcess;
  dir: string;
  errorLog: string;
  accessLog: string;
  /** SIGQUIT (graceful), SIGKILL after 5 s; resolves when the master has exited. */
  stop(): Promise<void>;
  /** nginx's own output and its error log, for failure messages. */
  output(): string;
  /** Whether the master process has exited. */
  exited(): boolean;
}

/** Renders the template into `dir`, checks it with `nginx -t`, and runs nginx on it in the foreground. */
export async function startNginx(bin: string, dir: string, vars: Record<string, string | number>): Promise<RunningNginx> {
  const site = join(dir, 'voice.conf');
  writeFileSync(site, renderTemplate(readFileSync(NGINX_TEMPLATE, 'utf8'), vars));
  const temp = join(dir, 'temp');
  mkdirSync(temp, { recursive: true });
  const errorLog = join(dir, 'error.log');
  const accessLog = join(dir, 'access.log');
  const main = join(dir, 'nginx.conf');
  writeFileSync(
    main,
    [
      'daemon off;',
      'worker_processes 1;',
      `pid ${join(dir, 'nginx.pid')};`,
      `error_log ${errorLog} info;`,
      'events { worker_connections 256; }',
      'http {',
      // Which upstream served each request, for the routing checks.
      '  log_format routed \'$request_method $request_uri $status $upstream_addr\';',
      `  access_log ${accessLog} routed;`,
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((k) => `  ${k}_temp_path ${join(temp, k)};`),
      `  include ${site};`,
      '}',
      '',
    ].join('\n'),
  );
  const args = ['-p', `${dir}/`, '-c', main, '-e', errorLog];
  try {
    execFileSync(bin, [...args, '-t', '-q'], { stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const e = err as { stderr?: Buffer };
    throw new Error(`nginx -t rejected the rendered deploy/nginx.conf: ${e.stderr?.toString() ?? String(err)}`);
  }
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let gone = false;
  void exited.then(() => (gone = true));
  return {
    child,
    dir,
    errorLog,
    accessLog,
    stop: async () => {
      if (gone) return;
      child.kill('SIGQUIT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
    output: () => `${output}\n${existsSync(errorLog) ? readFileSync(errorLog, 'utf8') : ''}`,
    exited: () => gone,
  };
}

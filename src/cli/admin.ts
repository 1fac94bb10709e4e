import { loadConfig } from '../config/env.js';
import { environmentWithFile } from '../config/env-file.js';
import { closeContext, createContext } from '../context.js';
import { createLogger } from '../shared/logger.js';
import { AppError } from '../shared/errors.js';
import { parseArgs } from './args.js';
import { commands } from './commands.js';

// Operators' command line: JSON on stdout, a message on stderr and exit 1 on error.
async function run(): Promise<number> {
  const { command, flags } = parseArgs(process.argv.slice(2));
  const handler = command ? commands[command] : undefined;
  if (!handler) {
    process.stderr.write(`usage: npm run --silent admin -- <command> [--flag value]\ncommands: ${Object.keys(commands).join(', ')}\n`);
    return 2;
  }
  // The service's own settings (environment over .env); the database must already exist.
  const env = environmentWithFile();
  const config = loadConfig(env);
  // Logs go to stderr at warn so stdout stays pure JSON.
  const log = createLogger(env.LOG_LEVEL ?? 'warn', 'voice', 2).child({ role: 'admin' });
  const ctx = await createContext(config, { log }, 'existing');
  try {
    const result = await handler(ctx, flags);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } finally {
    await closeContext(ctx);
  }
}

run().then(
  (code) => process.exit(code),
  (err) => {
    const message = err instanceof AppError ? (typeof err.detail === 'string' ? err.detail : JSON.stringify(err.detail)) : err instanceof Error ? err.message : String(err);
    process.stderr.write(`error: ${message}\n`);
    process.exit(1);
  },
);

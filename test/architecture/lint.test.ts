import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import t from 'tap';

// ESLint with typescript-eslint's recommended type-checked rules (eslint.config.js) finds
// nothing in src/: no `any`, no unsafe member access, no floating promises.
const root = resolve(import.meta.dirname, '..', '..');

t.test('src/ passes the type-checked lint rules', async (t) => {
  let out: string;
  try {
    out = execFileSync(join(root, 'node_modules', '.bin', 'eslint'), ['src', '--format', 'json'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  } catch (err) {
    out = (err as { stdout?: string }).stdout ?? '';
    if (!out) throw err;
  }
  const files = JSON.parse(out) as { filePath: string; messages: { line: number; ruleId: string | null; message: string }[] }[];
  const problems = files.flatMap((f) => f.messages.map((m) => `${f.filePath.slice(root.length + 1)}:${m.line} ${m.ruleId ?? ''} ${m.message}`));
  t.same(problems, []);
});

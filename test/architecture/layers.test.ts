import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import t from 'tap';

// The layering rules of .dependency-cruiser.cjs (drawn in docs/architecture.md) hold for src/,
// and the same rules refuse an import that runs back up or a cycle (shown on a scratch tree).

const root = resolve(import.meta.dirname, '..', '..');
const config = join(root, '.dependency-cruiser.cjs');
const bin = join(root, 'node_modules', '.bin', 'depcruise');

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

function cruise(cwd: string): Violation[] {
  let out: string;
  try {
    out = execFileSync(bin, ['src', '--config', config, '--output-type', 'json'], { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  } catch (err) {
    // depcruise exits non-zero when it finds violations; its JSON is still on stdout.
    out = (err as { stdout?: string }).stdout ?? '';
    if (!out) throw err;
  }
  return (JSON.parse(out) as { summary: { violations: Violation[] } }).summary.violations;
}

t.test('src/ imports only down the layers, with no cycle', async (t) => {
  const violations = cruise(root);
  t.same(violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`), []);
});

t.test('the rules refuse an upward import and a cycle', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'layers-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = (path: string, text: string) => {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  file('tsconfig.json', JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', allowImportingTsExtensions: true } }));
  file('src/control/app.ts', "export const app = 1;\n");
  // Forbidden: the database floor reaching up into the HTTP layer.
  file('src/db/repos/accounts.ts', "import { app } from '../../control/app.js';\nexport const a = app;\n");
  // Allowed: the HTTP layer using the database floor.
  file('src/control/routes.ts', "import { a } from '../db/repos/accounts.js';\nexport const r = a;\n");
  // Forbidden: two sibling folders of different layers importing each other (a folder cycle).
  file('src/media/server.ts', "import { c } from '../conversation/call.js';\nexport const s = c;\n");
  file('src/conversation/call.ts', "import type { s } from '../media/server.js';\nexport const c = 1;\nexport type S = typeof s;\n");

  const found = cruise(dir).map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
  t.ok(found.includes('layer-db: src/db/repos/accounts.ts -> src/control/app.ts'), 'db -> control is refused');
  t.ok(found.includes('layer-media: src/media/server.ts -> src/conversation/call.ts'), 'media -> conversation is refused');
  t.ok(found.some((f) => f.startsWith('no-circular: ')), 'the media/conversation cycle is refused');
  t.notOk(found.some((f) => f.includes('src/control/routes.ts')), 'control -> db is allowed');
});

import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import t from 'tap';
import { liveOpenApiDocument, SDK_TYPES_FILE, sdkTypesSource } from './openapi-types.js';

// The SDK's types come from the service's OpenAPI document. This fails when the two drift:
// the committed generated file must equal a fresh generation, and the SDK must compile
// against it (a renamed path or field breaks the build). Fix: npm run generate:sdk-types.

t.test('packages/sdk/src/generated/openapi.ts matches the served document', async (t) => {
  const fresh = await sdkTypesSource(await liveOpenApiDocument());
  const committed = readFileSync(SDK_TYPES_FILE, 'utf8');
  t.ok(fresh === committed, 'generated types are current (run `npm run generate:sdk-types` when this fails)');
});

t.test('the SDK compiles against its generated types', async (t) => {
  const project = new URL('../../packages/sdk/tsconfig.json', import.meta.url).pathname;
  let output = '';
  try {
    execFileSync(process.execPath, [new URL('../../node_modules/typescript/bin/tsc', import.meta.url).pathname, '-p', project, '--noEmit'], { encoding: 'utf8' });
  } catch (err) {
    output = String((err as { stdout?: string }).stdout ?? err);
  }
  t.equal(output, '', 'tsc --noEmit on packages/sdk');
});

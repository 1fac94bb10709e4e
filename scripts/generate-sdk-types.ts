// Regenerates packages/sdk/src/generated/openapi.ts from the service's OpenAPI document
// (test/sdk/types-drift.test.ts fails while the committed file differs from a fresh one).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { liveOpenApiDocument, SDK_TYPES_FILE, sdkTypesSource } from '../test/sdk/openapi-types.js';

const source = await sdkTypesSource(await liveOpenApiDocument());
writeFileSync(SDK_TYPES_FILE, source);
console.log(`wrote ${fileURLToPath(SDK_TYPES_FILE)}`);

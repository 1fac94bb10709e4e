import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import { startHarness } from '../helpers/harness.js';

// The SDK's types are generated from the document the service serves (/openapi.json), built
// here in-process on a throwaway database, so generation needs no running service.

export const SDK_TYPES_FILE = new URL('../../packages/sdk/src/generated/openapi.ts', import.meta.url);

export async function liveOpenApiDocument(): Promise<Record<string, unknown>> {
  const h = await startHarness();
  try {
    const res = await h.app.inject({ method: 'GET', url: '/openapi.json' });
    return res.json<Record<string, unknown>>();
  } finally {
    await h.close();
  }
}

/** The TypeScript text openapi-typescript makes from `doc`. */
export async function sdkTypesSource(doc: Record<string, unknown>): Promise<string> {
  // defaultNonNullable off: a request field with a default is optional to the caller.
  const ast = await openapiTS(doc as never, { alphabetize: true, defaultNonNullable: false });
  return `${COMMENT_HEADER}// Regenerate with: npm run generate:sdk-types\n\n${astToString(ast)}`;
}

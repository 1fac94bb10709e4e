export const SCOPES = ['voice:read', 'voice:write', 'webhook:read', 'webhook:write'] as const;
export type Scope = (typeof SCOPES)[number];

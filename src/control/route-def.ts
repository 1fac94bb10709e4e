import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Scope } from '../contract/scopes.js';
import type { ApiKeyCaller } from './auth/api-key.js';
import type { ConsoleCaller } from './auth/console-session.js';

// What a route declaration is (route.ts registers it, openapi.ts documents it).

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';
export type AuthKind = 'none' | 'console' | 'console-unverified' | { scope: Scope };

export type Schema = z.ZodType | undefined;
export type Out<S extends Schema> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteDef<B extends Schema, Q extends Schema, P extends Schema, H extends Schema = undefined> {
  method: Method;
  url: string;
  summary: string;
  tag: string;
  auth: AuthKind;
  body?: B;
  query?: Q;
  params?: P;
  headers?: H;
  status: number;
  response?: z.ZodType;
  /** Stable camelCase name in /openapi.json (derived from method and path when absent). */
  operationId?: string;
  /** Error statuses this operation answers beyond those its auth and inputs imply (402, 409, ...). */
  errors?: number[];
  /** Security requirements in /openapi.json when `auth` does not say them (publishable keys). */
  security?: Record<string, string[]>[];
  /**
   * A creating POST that honours `Idempotency-Key` (contract §11; project routes only). `replay`
   * adjusts a replayed body (outbound answers `duplicate: true`).
   */
  idempotent?: boolean | { replay?: (body: unknown) => unknown };
  /** Runs after authentication and before any input is parsed (ownership checks). */
  authorize?: (caller: Caller, rawParams: Record<string, unknown>) => Promise<void>;
}

export type Caller = ApiKeyCaller | ConsoleCaller | null;

export interface RouteInput<B extends Schema, Q extends Schema, P extends Schema, H extends Schema> {
  body: Out<B>;
  query: Out<Q>;
  params: Out<P>;
  headers: Out<H>;
  caller: Caller;
  req: FastifyRequest;
  reply: FastifyReply;
}


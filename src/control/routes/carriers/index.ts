import { z } from 'zod';
import { createCarrierConnection, updateCarrierConnection, verifyCarrier } from '../../../carriers/accounts.js';
import { deleteCarrier, getCarrier, listCarriers } from '../../../db/repos/carriers.js';
import {
  createCarrierNumber,
  deleteCarrierNumber,
  getCarrierNumber,
  listCarrierNumbers,
  updateCarrierNumber,
} from '../../../db/repos/carrier-numbers.js';
import { errors } from '../../../shared/errors.js';
import { loadOwnedProject, type ConsoleCaller } from '../../auth/console-session.js';
import { defineRoute, type Caller, type Router } from '../../route.js';
import {
  CarrierCreateBody,
  CarrierInfo,
  CarrierNumberCreateBody,
  CarrierNumberInfo,
  CarrierNumberUpdateBody,
  CarrierUpdateBody,
} from '../../../contract/carriers.js';
import { paging, ProjectPath } from '../../../contract/validation.js';
import { twilioCallbackRoutes } from './twilio-callbacks.js';

// Carriers and their numbers: console door only (contract §2, §10). DELETE of a carrier answers
// 409 while it still has numbers; deleting a number is always allowed.

const CarrierPath = ProjectPath.extend({ carrier_id: z.uuid() });
const NumberPath = CarrierPath.extend({ number_id: z.uuid() });
const Paging = z.strictObject(paging);
const base = '/console/v2/projects/:project_id/carriers';
const one = `${base}/:carrier_id`;
const numbers = `${one}/numbers`;

export function carrierRoutes(router: Router): void {
  const { ctx } = router;
  twilioCallbackRoutes(router);
  // Ownership before anything about the body: another owner's project is a 404 whatever is sent.
  const authorize = async (caller: Caller, raw: Record<string, unknown>) => {
    const parsed = ProjectPath.safeParse({ project_id: raw.project_id });
    if (parsed.success) await loadOwnedProject(ctx, (caller as ConsoleCaller).accountId, parsed.data.project_id);
  };
  const carriers = { tag: 'carriers', auth: 'console' as const, authorize };
  const nums = { tag: 'carrier numbers', auth: 'console' as const, authorize };
  const pid = (p: { project_id: string }) => p.project_id.toLowerCase();

  defineRoute(router, { ...carriers, method: 'POST', url: base, summary: 'Add a carrier connection (Twilio); the auth token is never shown again', params: ProjectPath, body: CarrierCreateBody, status: 201, response: CarrierInfo }, async ({ params, body }) =>
    createCarrierConnection(ctx, pid(params), body));

  defineRoute(router, { ...carriers, method: 'GET', url: base, summary: 'List carrier connections', params: ProjectPath, query: Paging, status: 200, response: z.array(CarrierInfo) }, async ({ params, query }) =>
    listCarriers(ctx, pid(params), query.limit, query.offset));

  defineRoute(router, { ...carriers, method: 'GET', url: one, summary: 'Get a carrier connection', params: CarrierPath, status: 200, response: CarrierInfo }, async ({ params }) =>
    getCarrier(ctx.sql, pid(params), params.carrier_id));

  defineRoute(router, { ...carriers, method: 'PATCH', url: one, summary: 'Change a carrier connection (new credentials or base_url need verifying again)', params: CarrierPath, body: CarrierUpdateBody, status: 200, response: CarrierInfo }, async ({ params, body }) =>
    updateCarrierConnection(ctx, pid(params), params.carrier_id, body));

  defineRoute(router, { ...carriers, method: 'DELETE', url: one, summary: 'Delete a carrier connection (409 while it has numbers)', params: CarrierPath, status: 200, response: CarrierInfo }, async ({ params }) =>
    deleteCarrier(ctx, pid(params), params.carrier_id));

  defineRoute(router, { ...carriers, method: 'POST', url: `${one}/verify`, summary: 'Check the credentials with one live, read-only call to the carrier', params: CarrierPath, status: 200, response: CarrierInfo }, async ({ params }) =>
    verifyCarrier(ctx, pid(params), params.carrier_id));

  defineRoute(router, { ...nums, method: 'POST', url: numbers, summary: 'Add a number to a carrier connection', params: CarrierPath, body: CarrierNumberCreateBody, status: 201, response: CarrierNumberInfo }, async ({ params, body }) =>
    createCarrierNumber(ctx, pid(params), params.carrier_id, { e164: body.e164, outboundEnabled: body.outbound_enabled, agentId: body.agent_id ?? null }));

  defineRoute(router, { ...nums, method: 'GET', url: numbers, summary: 'List the numbers of a carrier connection', params: CarrierPath, query: Paging, status: 200, response: z.array(CarrierNumberInfo) }, async ({ params, query }) =>
    listCarrierNumbers(ctx, pid(params), params.carrier_id, query.limit, query.offset));

  defineRoute(router, { ...nums, method: 'GET', url: `${numbers}/:number_id`, summary: 'Get a number', params: NumberPath, status: 200, response: CarrierNumberInfo }, async ({ params }) =>
    getCarrierNumber(ctx.sql, pid(params), params.carrier_id, params.number_id));

  defineRoute(router, { ...nums, method: 'PATCH', url: `${numbers}/:number_id`, summary: 'Change outbound_enabled or the inbound agent of a number', params: NumberPath, body: CarrierNumberUpdateBody, status: 200, response: CarrierNumberInfo }, async ({ params, body }) => {
    if (Object.keys(body).length === 0) {
      throw errors.validation([{ loc: ['body'], msg: 'send at least one of outbound_enabled, agent_id', type: 'value_error' }]);
    }
    return updateCarrierNumber(ctx, pid(params), params.carrier_id, params.number_id, { outboundEnabled: body.outbound_enabled, agentId: body.agent_id });
  });

  defineRoute(router, { ...nums, method: 'DELETE', url: `${numbers}/:number_id`, summary: 'Remove a number from a carrier connection', params: NumberPath, status: 200, response: CarrierNumberInfo }, async ({ params }) =>
    deleteCarrierNumber(ctx, pid(params), params.carrier_id, params.number_id));
}

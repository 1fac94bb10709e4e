import { z } from 'zod';
import { carrierDocument, createCarrierConnection, updateCarrierConnection, verifyCarrier } from '../../../carriers/accounts.js';
import { deleteCarrier, getCarrier, listCarriers } from '../../../db/repos/carriers.js';
import { addNumber, changeNumber, getNumber, listIncomingNumbers, listNumbers, removeNumber, syncNumber } from '../../../telephony/numbers.js';
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
  IncomingNumbersPage,
  IncomingNumbersQuery,
} from '../../../contract/carriers.js';
import { paging, ProjectPath } from '../../../contract/validation.js';
import { telnyxCallbackRoutes } from './telnyx-callbacks.js';
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
  telnyxCallbackRoutes(router);
  // Ownership before anything about the body: another owner's project is a 404 whatever is sent.
  const authorize = async (caller: Caller, raw: Record<string, unknown>) => {
    const parsed = ProjectPath.safeParse({ project_id: raw.project_id });
    if (parsed.success) await loadOwnedProject(ctx, (caller as ConsoleCaller).accountId, parsed.data.project_id);
  };
  const carriers = { tag: 'carriers', auth: 'console' as const, authorize };
  const nums = { tag: 'carrier numbers', auth: 'console' as const, authorize };
  const pid = (p: { project_id: string }) => p.project_id.toLowerCase();

  defineRoute(router, { ...carriers, method: 'POST', url: base, operationId: 'createCarrier', summary: 'Add a carrier connection (Twilio or Telnyx); the auth token or API key is never shown again', errors: [409], params: ProjectPath, body: CarrierCreateBody, status: 201, response: CarrierInfo }, async ({ params, body }) =>
    carrierDocument(await createCarrierConnection(ctx, pid(params), body)));

  defineRoute(router, { ...carriers, method: 'GET', url: base, operationId: 'listCarriers', summary: 'List carrier connections', params: ProjectPath, query: Paging, status: 200, response: z.array(CarrierInfo) }, async ({ params, query }) =>
    (await listCarriers(ctx, pid(params), query.limit, query.offset)).map(carrierDocument));

  defineRoute(router, { ...carriers, method: 'GET', url: one, operationId: 'getCarrier', summary: 'Get a carrier connection', params: CarrierPath, status: 200, response: CarrierInfo }, async ({ params }) =>
    carrierDocument(await getCarrier(ctx.sql, pid(params), params.carrier_id)));

  defineRoute(router, { ...carriers, method: 'PATCH', url: one, operationId: 'updateCarrier', summary: 'Change a carrier connection (new credentials or base_url need verifying again)', errors: [409], params: CarrierPath, body: CarrierUpdateBody, status: 200, response: CarrierInfo }, async ({ params, body }) =>
    carrierDocument(await updateCarrierConnection(ctx, pid(params), params.carrier_id, body)));

  defineRoute(router, { ...carriers, method: 'DELETE', url: one, operationId: 'deleteCarrier', summary: 'Delete a carrier connection (409 while it has numbers)', errors: [409], params: CarrierPath, status: 200, response: CarrierInfo }, async ({ params }) =>
    carrierDocument(await deleteCarrier(ctx, pid(params), params.carrier_id)));

  defineRoute(router, { ...carriers, method: 'POST', url: `${one}/verify`, operationId: 'verifyCarrier', summary: 'Check the credentials with one live, read-only call to the carrier', errors: [409], params: CarrierPath, status: 200, response: CarrierInfo }, async ({ params }) =>
    carrierDocument(await verifyCarrier(ctx, pid(params), params.carrier_id)));

  defineRoute(router, { ...nums, method: 'POST', url: numbers, operationId: 'createCarrierNumber', summary: 'Add a number to a carrier connection (with agent_id, its voice URL is set at the carrier)', errors: [409], params: CarrierPath, body: CarrierNumberCreateBody, status: 201, response: CarrierNumberInfo }, async ({ params, body }) =>
    addNumber(ctx, pid(params), params.carrier_id, { e164: body.e164, outboundEnabled: body.outbound_enabled, agentId: body.agent_id ?? null }));

  defineRoute(router, { ...nums, method: 'GET', url: numbers, operationId: 'listCarrierNumbers', summary: 'List the numbers of a carrier connection', params: CarrierPath, query: Paging, status: 200, response: z.array(CarrierNumberInfo) }, async ({ params, query }) =>
    listNumbers(ctx, pid(params), params.carrier_id, query.limit, query.offset));

  defineRoute(router, { ...nums, method: 'GET', url: `${numbers}/:number_id`, operationId: 'getCarrierNumber', summary: 'Get a number', params: NumberPath, status: 200, response: CarrierNumberInfo }, async ({ params }) =>
    getNumber(ctx, pid(params), params.carrier_id, params.number_id));

  defineRoute(router, { ...nums, method: 'PATCH', url: `${numbers}/:number_id`, operationId: 'updateCarrierNumber', summary: 'Change outbound_enabled or the inbound agent of a number (binding or unbinding configures the carrier)', params: NumberPath, body: CarrierNumberUpdateBody, status: 200, response: CarrierNumberInfo }, async ({ params, body }) => {
    if (Object.keys(body).length === 0) {
      throw errors.validation([{ loc: ['body'], msg: 'send at least one of outbound_enabled, agent_id', type: 'value_error' }]);
    }
    return changeNumber(ctx, pid(params), params.carrier_id, params.number_id, { outboundEnabled: body.outbound_enabled, agentId: body.agent_id });
  });

  defineRoute(router, { ...nums, method: 'DELETE', url: `${numbers}/:number_id`, operationId: 'deleteCarrierNumber', summary: "Remove a number from a carrier connection (its previous settings are put back at the carrier)", params: NumberPath, status: 200, response: CarrierNumberInfo }, async ({ params }) =>
    removeNumber(ctx, pid(params), params.carrier_id, params.number_id));

  defineRoute(router, { ...nums, method: 'POST', url: `${numbers}/:number_id/sync`, operationId: 'syncCarrierNumber', summary: "Apply the number's configuration at the carrier again (its voice URL when bound, its previous settings when not)", params: NumberPath, status: 200, response: CarrierNumberInfo }, async ({ params }) =>
    syncNumber(ctx, pid(params), params.carrier_id, params.number_id));

  defineRoute(router, { ...nums, method: 'GET', url: `${one}/incoming-numbers`, operationId: 'listIncomingNumbers', summary: "List the numbers of the carrier account, for import (the carrier's own paging)", errors: [503], params: CarrierPath, query: IncomingNumbersQuery, status: 200, response: IncomingNumbersPage }, async ({ params, query }) =>
    listIncomingNumbers(ctx, pid(params), params.carrier_id, query.page_size, query.page_token ?? null));
}

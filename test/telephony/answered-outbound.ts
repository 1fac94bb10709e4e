import { createCarrierConnection, verifyCarrier } from '../../src/carriers/accounts.js';
import { createCarrierNumber } from '../../src/db/repos/carrier-numbers.js';
import { processDial } from '../../src/telephony/dial.js';
import { admitOutbound } from '../../src/telephony/outbound.js';
import { sendStatusCallback } from '../fakes/twilio/callbacks.js';
import type { PlacedCall } from '../fakes/twilio/rest.js';
import type { FakeMediaStream } from '../fakes/twilio/media-client.js';
import { openStream, type TelephonyBed } from './helpers.js';

/**
 * An outbound call of `agent` to Ann at +14155557777 on the fake Twilio line, answered, its media
 * stream open and the line's noise running: the callee has picked up. `firstWords` (8 kHz PCM)
 * fill the stream's first frames, as when the callee talks as they pick up.
 */
export async function answeredOutbound(
  bed: TelephonyBed,
  agent: { projectId: string; agentId: string },
  firstWords?: Int16Array,
): Promise<{ phone: FakeMediaStream; sessionId: string; call: PlacedCall }> {
  const { h, fake } = bed;
  const account = fake.addAccount();
  const carrier = await createCarrierConnection(h.ctx, agent.projectId, { kind: 'twilio', label: 'line', credentials: { account_sid: account.sid, auth_token: account.token }, base_url: fake.baseUrl });
  await verifyCarrier(h.ctx, agent.projectId, carrier.id);
  await createCarrierNumber(h.ctx, agent.projectId, carrier.id, { e164: '+14155550123', outboundEnabled: true, agentId: null });
  const admitted = await admitOutbound(h.ctx, agent.projectId, { agent_id: agent.agentId, from: '+14155550123', to: '+14155557777', variables: { name: 'Ann' } });
  const sessionId = admitted.session.id;
  const outcome = await processDial(h.ctx, sessionId);
  const call = fake.calls.find((c) => c.sid === (outcome as { callSid: string }).callSid)!;
  await sendStatusCallback(fake, call.sid, 'in-progress');
  const phone = await openStream(call, account);
  if (firstWords) phone.say(firstWords, 'first words');
  phone.startLine();
  return { phone, sessionId, call };
}

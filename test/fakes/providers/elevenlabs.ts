import { sendJson, startFake, type FakeProvider } from './server.js';

// ElevenLabs' GET /v1/user: `xi-api-key` header; the user record (which echoes the key, so a
// verifier must never pass the body on), or {"detail": {"status", "message"}} on failure.

// `restrictedKey` is a genuine key created without the user_read permission.
export function startFakeElevenLabs(validKey: string, restrictedKey?: string): Promise<FakeProvider> {
  return startFake((req, res) => {
    if (req.method !== 'GET' || req.path !== '/v1/user') return sendJson(res, 404, { detail: 'Not Found' });
    const key = req.headers['xi-api-key'];
    if (restrictedKey && key === restrictedKey) {
      return sendJson(res, 401, {
        detail: { status: 'missing_permissions', message: 'The API key you used is missing the permission user_read to execute this operation.' },
      });
    }
    if (key !== validKey) {
      return sendJson(res, 401, { detail: { status: 'invalid_api_key', message: 'Invalid API key' } });
    }
    sendJson(res, 200, {
      subscription: {
        tier: 'starter',
        character_count: 1520,
        character_limit: 30000,
        can_extend_character_limit: true,
        allowed_to_extend_character_limit: true,
        next_character_count_reset_unix: 1767225600,
        voice_limit: 10,
        professional_voice_limit: 0,
        can_use_instant_voice_cloning: true,
        can_use_professional_voice_cloning: false,
        status: 'active',
      },
      is_new_user: false,
      xi_api_key: key,
      can_use_delayed_payment_methods: false,
      is_onboarding_completed: true,
      is_onboarding_checklist_completed: true,
      first_name: null,
      is_api_key_hashed: false,
      xi_api_key_preview: null,
      referral_link_code: null,
      partnerstack_partner_default_link: null,
      user_id: 'u8Fq2Zr4Xk1Lm9Np3Vt7',
    });
  });
}

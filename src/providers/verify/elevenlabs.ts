import { ELEVENLABS } from '../hosts.js';
import { isObject, probe, type VerifyResult, type VerifyTarget } from './http.js';

// ElevenLabs: GET /v1/user with `xi-api-key` answers the user ({user_id, subscription, ...});
// errors are {"detail":{"status":"invalid_api_key","message":...}}. A key restricted to some
// permissions is refused here with status "missing_permissions": it is genuine, and text to
// speech (all we use it for) may well be among its permissions, so it counts as verified.
export function verifyElevenLabs(target: VerifyTarget): Promise<VerifyResult> {
  return probe(
    {
      host: ELEVENLABS,
      path: '/v1/user',
      looksRight: (b) => isObject(b) && (typeof b.user_id === 'string' || isObject(b.subscription)),
      expected: 'user record',
      errorCode: (b) => (isObject(b) && isObject(b.detail) ? b.detail.status : undefined),
      acceptRefusal: (_status, b) =>
        isObject(b) && isObject(b.detail) && b.detail.status === 'missing_permissions'
          ? 'ElevenLabs accepted the key; it lacks the user_read permission, so only its authenticity was checked'
          : null,
    },
    target,
  );
}

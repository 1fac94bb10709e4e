import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../shared/app-context.js';

// Device cookies (OWASP "slow down online guessing with device cookies"): a browser that signed
// in to an account successfully gets a cookie sealed with the keyring and bound to that account,
// so a later sign-in from it is recognised as the account's own client, a signal an attacker
// guessing the password lacks. The device id inside lets failures from one device be counted
// (and that device distrusted) without touching anyone else.

export const DEVICE_COOKIE = 'vc_device';
export const DEVICE_COOKIE_MAX_AGE_S = 180 * 86_400;
const AAD = (accountKey: string) => `signin-device:${accountKey}`;

/** A new sealed device cookie value for this account: `<device id>.<issued at, unix s>` inside. */
export function issueDeviceToken(ctx: AppContext, accountKey: string): string {
  const deviceId = randomBytes(16).toString('base64url');
  return encodeURIComponent(ctx.keyring.encrypt(`${deviceId}.${Math.floor(ctx.clock.now().getTime() / 1000)}`, AAD(accountKey)));
}

/** The device id of a cookie issued for this account and not yet expired; null for anything else. */
export function readDeviceToken(ctx: AppContext, accountKey: string, cookieHeader: string | undefined): string | null {
  const raw = cookieValue(cookieHeader, DEVICE_COOKIE);
  if (!raw) return null;
  try {
    const [deviceId, issued] = ctx.keyring.decrypt(decodeURIComponent(raw), AAD(accountKey)).split('.');
    if (!deviceId || !issued) return null;
    if (ctx.clock.now().getTime() / 1000 - Number(issued) > DEVICE_COOKIE_MAX_AGE_S) return null;
    return deviceId;
  } catch {
    return null; // another account's cookie, a forged one, or one sealed by a retired key
  }
}

/** The Set-Cookie header for a device token: only the login route sees it, never scripts. */
export function deviceCookieHeader(token: string, secure: boolean): string {
  return `${DEVICE_COOKIE}=${token}; Path=/console/auth/login; Max-Age=${DEVICE_COOKIE_MAX_AGE_S}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

function cookieValue(header: string | undefined, name: string): string | null {
  if (!header || header.length > 8192) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

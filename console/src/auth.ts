// The console session. The access token lives only in memory. The console door refreshes with
// a refresh token in the body (no cookie), so the refresh token is kept in sessionStorage: it
// survives a reload of this tab, is gone when the tab closes, is never in localStorage, and is
// rotated on every use (a stolen, already-used one revokes the whole family server-side).

const REFRESH_KEY = 'vc.refresh';

interface TokenPair {
  access_token: string;
  refresh_token: string;
  expires_in: number;
}

let accessToken: string | null = null;
let refreshTimer: ReturnType<typeof setTimeout> | undefined;
let refreshing: Promise<boolean> | null = null;
const listeners = new Set<() => void>();

export function onAuthChange(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

export function getAccessToken(): string | null {
  return accessToken;
}

export function isLoggedIn(): boolean {
  return accessToken !== null;
}

export function hasRefreshToken(): boolean {
  return sessionStorage.getItem(REFRESH_KEY) !== null;
}

export function storeTokens(pair: TokenPair): void {
  accessToken = pair.access_token;
  sessionStorage.setItem(REFRESH_KEY, pair.refresh_token);
  clearTimeout(refreshTimer);
  // Refresh a minute before the access token runs out, so a person at work never sees a 401.
  const inMs = Math.max(10, pair.expires_in - 60) * 1000;
  refreshTimer = setTimeout(() => void refresh(), inMs);
  listeners.forEach((l) => l());
}

export function clearTokens(): void {
  accessToken = null;
  sessionStorage.removeItem(REFRESH_KEY);
  clearTimeout(refreshTimer);
  listeners.forEach((l) => l());
}

/** Exchanges the refresh token for a new pair; concurrent callers share one exchange. */
export function refresh(): Promise<boolean> {
  refreshing ??= (async () => {
    const token = sessionStorage.getItem(REFRESH_KEY);
    if (!token) return false;
    try {
      const res = await fetch('/console/auth/refresh', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ refresh_token: token }),
      });
      if (!res.ok) {
        clearTokens();
        return false;
      }
      storeTokens((await res.json()) as TokenPair);
      return true;
    } catch {
      return false;
    }
  })().finally(() => {
    refreshing = null;
  });
  return refreshing;
}

import { useEffect, useState } from 'preact/hooks';

// A small history-API router: pages are plain paths under /, links are <a href> caught here,
// so the browser's back button and copied links work.

type Listener = () => void;
const listeners = new Set<Listener>();

export function currentPath(): string {
  return location.pathname + location.search;
}

export function navigate(to: string, replace = false): void {
  if (to === currentPath()) return;
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  window.scrollTo(0, 0);
  listeners.forEach((l) => l());
}

window.addEventListener('popstate', () => listeners.forEach((l) => l()));

// Same-origin links navigate in the page; modified clicks (new tab) are left to the browser.
document.addEventListener('click', (e) => {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const a = (e.target as Element).closest?.('a');
  if (!a || a.target || a.hasAttribute('download')) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || a.dataset.external !== undefined) return;
  e.preventDefault();
  navigate(url.pathname + url.search);
});

/** Re-renders the caller when the location changes. */
export function useLocation(): { path: string; query: URLSearchParams } {
  const [, tick] = useState(0);
  useEffect(() => {
    const l = () => tick((n) => n + 1);
    listeners.add(l);
    return () => listeners.delete(l);
  }, []);
  return { path: location.pathname, query: new URLSearchParams(location.search) };
}

/** Matches `/p/:pid/agents/:id` against a path; returns the named parts or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split('/').filter(Boolean);
  const s = path.split('/').filter(Boolean);
  if (p.length !== s.length) return null;
  const out: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i].startsWith(':')) out[p[i].slice(1)] = decodeURIComponent(s[i]);
    else if (p[i] !== s[i]) return null;
  }
  return out;
}

import { minutesOf, WEEK_DAYS, type CallingWindow, type WeekDay } from '../contract/campaigns.js';

// Calling windows in the callee's time zone, with the runtime's IANA data (Intl), so daylight
// saving moves with the zone: a window "mon–fri 09:00–17:00" in America/New_York opens at 13:00
// or 14:00 UTC depending on the date. Windows are [start, end) in local wall-clock time.

interface LocalTime {
  year: number;
  month: number;
  day: number;
  weekday: WeekDay;
  /** Minutes after local midnight. */
  minute: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      weekday: 'short',
      hour: 'numeric',
      minute: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

export function localTime(zone: string, at: Date): LocalTime {
  const parts: Record<string, string> = {};
  for (const p of formatter(zone).formatToParts(at)) parts[p.type] = p.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    weekday: parts.weekday.slice(0, 3).toLowerCase() as WeekDay,
    minute: Number(parts.hour) * 60 + Number(parts.minute),
  };
}

/** The zone's offset from UTC at `ms`, in ms (local minus UTC, to the minute). */
function offsetAt(zone: string, ms: number): number {
  const l = localTime(zone, new Date(ms));
  const asUtc = Date.UTC(l.year, l.month - 1, l.day, 0, l.minute);
  return asUtc - Math.floor(ms / 60_000) * 60_000;
}

/** The instant a local wall-clock time happens in `zone` (a time skipped by DST lands just after the gap). */
function zonedInstant(zone: string, year: number, month: number, day: number, minute: number): number {
  const guess = Date.UTC(year, month - 1, day, 0, minute);
  const first = guess - offsetAt(zone, guess);
  const second = guess - offsetAt(zone, first);
  return second;
}

/** True when `at` falls in one of the windows (always true with none). */
export function inWindow(windows: CallingWindow[], zone: string, at: Date): boolean {
  if (windows.length === 0) return true;
  const l = localTime(zone, at);
  return windows.some((w) => w.days.includes(l.weekday) && minutesOf(w.start) <= l.minute && l.minute < minutesOf(w.end));
}

/** The next instant after `at` when a window opens (looks 8 local days ahead; null if none does). */
export function nextOpening(windows: CallingWindow[], zone: string, at: Date): Date | null {
  const today = localTime(zone, at);
  let best: number | null = null;
  for (let d = 0; d <= 8; d++) {
    const date = new Date(Date.UTC(today.year, today.month - 1, today.day + d));
    const weekday = WEEK_DAYS[date.getUTCDay()];
    for (const w of windows) {
      if (!w.days.includes(weekday)) continue;
      const opens = zonedInstant(zone, date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), minutesOf(w.start));
      if (opens > at.getTime() && (best === null || opens < best)) best = opens;
    }
    if (best !== null) break;
  }
  return best === null ? null : new Date(best);
}

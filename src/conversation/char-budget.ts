// max_chars_per_min: characters sent to speech synthesis over any sliding minute.

const WINDOW_MS = 60_000;

export class CharBudget {
  private readonly spent: { at: number; chars: number }[] = [];

  constructor(private readonly perMinute: number | null) {}

  /** Takes `chars` from the budget at `nowMs`; false (nothing taken) when they do not fit. */
  take(chars: number, nowMs: number): boolean {
    if (this.perMinute === null) return true;
    while (this.spent.length && this.spent[0].at <= nowMs - WINDOW_MS) this.spent.shift();
    const used = this.spent.reduce((n, s) => n + s.chars, 0);
    if (used + chars > this.perMinute) return false;
    this.spent.push({ at: nowMs, chars });
    return true;
  }
}

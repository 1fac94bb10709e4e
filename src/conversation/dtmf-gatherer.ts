/** DTMF keys the caller pressed are gathered into one turn after this pause. */
export const DTMF_GAP_MS = 1500;

/** Collects the caller's keypresses and hands them over as one string once they pause. */
export class DtmfGatherer {
  private digits = '';
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly gathered: (digits: string) => void, private readonly gapMs = DTMF_GAP_MS) {}

  add(digit: string): void {
    this.digits += digit;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      const digits = this.digits;
      this.digits = '';
      if (digits) this.gathered(digits);
    }, this.gapMs);
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.digits = '';
  }
}

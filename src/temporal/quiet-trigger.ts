/**
 * Runs `fire` once writes go quiet: each `poke` pushes it `quietMs` further, but never past `maxWaitMs`
 * after the first poke of a burst, so a steady stream still fires. A bulk load's thousands of
 * announcements become one, and the model's work starts after the load instead of competing with it.
 */
export class QuietTrigger {
  private timer: NodeJS.Timeout | undefined;
  private burstStart = 0;

  constructor(
    private readonly fire: () => Promise<void>,
    private readonly quietMs: number,
    private readonly maxWaitMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  poke() {
    const now = this.now();
    if (this.timer === undefined) this.burstStart = now;
    else clearTimeout(this.timer);
    const wait = Math.max(0, Math.min(this.quietMs, this.burstStart + this.maxWaitMs - now));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.fire();
    }, wait);
  }

  /** Fires now what is pending (a process that stops does not leave it unannounced). */
  async flush() {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.fire();
  }
}

import type { Logger } from 'pino';

/**
 * The parts a process started, stopped in reverse order. A part that fails to stop is logged and the
 * rest still stop: a shutdown must not leave PostgreSQL or the dev server running because the worker threw.
 */
export class StopStack {
  private readonly parts: Array<{ name: string; stop: () => Promise<unknown> }> = [];

  constructor(private readonly log: Logger) {}

  push(name: string, stop: () => Promise<unknown>) {
    this.parts.push({ name, stop });
  }

  async stop() {
    for (const part of this.parts.splice(0).reverse()) {
      try {
        await part.stop();
      } catch (err) {
        this.log.error({ err, part: part.name }, 'error while stopping');
      }
    }
  }
}

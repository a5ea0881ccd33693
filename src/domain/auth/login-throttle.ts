import type { EntityManager } from '@mikro-orm/postgresql';
import { tooManyRequests } from '../errors.ts';
import { FailureCounter, type FailureCount } from './failure-counter.ts';

export interface ThrottleLimits {
  maxFailuresPerAccount: number;
  maxFailuresPerIp: number;
  windowSeconds: number;
}

/**
 * Failed logins are counted per account and per client IP in fixed windows, in Postgres so that every
 * API process shares one count. A caller over either limit gets 429 with Retry-After until its window
 * ends, whether or not the password it now sends is right.
 *
 * The account count is taken *before* the password is checked, in one atomic upsert, so a burst of
 * parallel guesses at one account gets no more checks than the limit; a good password takes its
 * attempt back. The IP count is only read before and written after a failure: many people may log in
 * at once from one IP (an office), and their logins in flight must not lock each other out.
 */
export class LoginThrottle {
  private readonly counter: FailureCounter;

  constructor(
    em: EntityManager,
    private readonly limits: ThrottleLimits,
  ) {
    this.counter = new FailureCounter(em, limits.windowSeconds);
  }

  async beginAttempt(account: string, ip: string) {
    const ipCount = await this.counter.read(`ip:${ip}`);
    if (ipCount && ipCount.failures >= this.limits.maxFailuresPerIp) throw this.limited(ipCount);
    const accountCount = await this.counter.increment(`account:${account}`);
    if (accountCount.failures > this.limits.maxFailuresPerAccount) throw this.limited(accountCount);
  }

  async recordFailure(ip: string) {
    await this.counter.increment(`ip:${ip}`);
  }

  /** The account's count starts over; the IP's failures stand, so one good account cannot launder guesses at others. */
  async recordSuccess(account: string) {
    await this.counter.reset(`account:${account}`);
  }

  private limited(count: FailureCount) {
    return tooManyRequests('login_rate_limited', 'Too many failed logins; try again later.', Number(count.retry_after));
  }
}

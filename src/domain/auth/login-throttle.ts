import type { EntityManager } from '@mikro-orm/postgresql';
import { tooManyRequests } from '../errors.ts';

export interface ThrottleLimits {
  maxFailuresPerAccount: number;
  maxFailuresPerIp: number;
  windowSeconds: number;
}

interface Count {
  failures: number;
  retry_after: number;
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
  constructor(
    private readonly em: EntityManager,
    private readonly limits: ThrottleLimits,
  ) {}

  async beginAttempt(account: string, ip: string) {
    const conn = this.em.getConnection();
    // Windows that ended are dead weight; sweeping them here keeps the table small.
    await conn.execute('delete from login_throttle where window_start <= now() - make_interval(secs => ?)', [this.limits.windowSeconds]);
    const [ipCount] = await conn.execute<Count[]>(`select failures, ${this.retryAfterSql} from login_throttle where key = ?`, [
      this.limits.windowSeconds,
      `ip:${ip}`,
    ]);
    if (ipCount && ipCount.failures >= this.limits.maxFailuresPerIp) throw this.limited(ipCount);
    const accountCount = await this.increment(`account:${account}`);
    if (accountCount.failures > this.limits.maxFailuresPerAccount) throw this.limited(accountCount);
  }

  async recordFailure(ip: string) {
    await this.increment(`ip:${ip}`);
  }

  /** The account's count starts over; the IP's failures stand, so one good account cannot launder guesses at others. */
  async recordSuccess(account: string) {
    await this.em.getConnection().execute('delete from login_throttle where key = ?', [`account:${account}`]);
  }

  private readonly retryAfterSql = 'extract(epoch from window_start + make_interval(secs => ?) - now()) as retry_after';

  private async increment(key: string): Promise<Count> {
    const [row] = await this.em.getConnection().execute<Count[]>(
      `insert into login_throttle (key, window_start, failures) values (?, now(), 1)
       on conflict (key) do update set failures = login_throttle.failures + 1
       returning failures, ${this.retryAfterSql}`,
      [key, this.limits.windowSeconds],
    );
    return row;
  }

  private limited(count: Count) {
    return tooManyRequests('login_rate_limited', 'Too many failed logins; try again later.', Number(count.retry_after));
  }
}

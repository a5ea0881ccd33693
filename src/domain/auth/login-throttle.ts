import type { EntityManager } from '@mikro-orm/postgresql';
import { tooManyRequests } from '../errors.ts';

export interface ThrottleLimits {
  maxFailuresPerAccount: number;
  maxFailuresPerIp: number;
  windowSeconds: number;
}

/**
 * Failed logins are counted per account and per client IP in fixed windows, in Postgres so that
 * every API process shares one count. A caller over either limit gets 429 with Retry-After until
 * its window ends, whether or not the password it now sends is right.
 */
export class LoginThrottle {
  constructor(
    private readonly em: EntityManager,
    private readonly limits: ThrottleLimits,
  ) {}

  private keys(account: string, ip: string) {
    return [
      { key: `account:${account.toLowerCase()}`, max: this.limits.maxFailuresPerAccount },
      { key: `ip:${ip}`, max: this.limits.maxFailuresPerIp },
    ];
  }

  async assertAllowed(account: string, ip: string) {
    const keys = this.keys(account, ip);
    const rows = await this.em.getConnection().execute<{ key: string; failures: number; retry_after: number }[]>(
      `select key, failures, extract(epoch from window_start + make_interval(secs => ?) - now()) as retry_after
         from login_throttle where key in (?, ?) and window_start > now() - make_interval(secs => ?)`,
      [this.limits.windowSeconds, keys[0].key, keys[1].key, this.limits.windowSeconds],
    );
    for (const { key, max } of keys) {
      const row = rows.find((r) => r.key === key);
      if (row && row.failures >= max) {
        throw tooManyRequests('login_rate_limited', 'Too many failed logins; try again later.', Number(row.retry_after));
      }
    }
  }

  async recordFailure(account: string, ip: string) {
    // Windows that ended are dead weight; failures are rare enough to sweep them here.
    await this.em.getConnection().execute(
      'delete from login_throttle where window_start <= now() - make_interval(secs => ?)',
      [this.limits.windowSeconds],
    );
    for (const { key } of this.keys(account, ip)) {
      await this.em.getConnection().execute(
        `insert into login_throttle (key, window_start, failures) values (?, now(), 1)
         on conflict (key) do update set
           failures = case when login_throttle.window_start <= now() - make_interval(secs => ?) then 1 else login_throttle.failures + 1 end,
           window_start = case when login_throttle.window_start <= now() - make_interval(secs => ?) then now() else login_throttle.window_start end`,
        [key, this.limits.windowSeconds, this.limits.windowSeconds],
      );
    }
  }

  /** A successful login clears the account's count; the IP's count stands, so one good account cannot launder guesses at others. */
  async recordSuccess(account: string) {
    await this.em.getConnection().execute('delete from login_throttle where key = ?', [`account:${account.toLowerCase()}`]);
  }
}

import type { EntityManager } from '@mikro-orm/postgresql';

export interface FailureCount {
  failures: number;
  /** Seconds until the count's window ends. */
  retry_after: number;
}

/**
 * Failures counted per key in fixed windows, in Postgres (`login_throttle`) so that every API process
 * shares one count: failed logins per account and per client IP, refused registrations per client IP.
 */
export class FailureCounter {
  constructor(
    private readonly em: EntityManager,
    private readonly windowSeconds: number,
  ) {}

  /** The key's count in its current window, or null; windows that ended are swept on the way. */
  async read(key: string): Promise<FailureCount | null> {
    const conn = this.em.getConnection();
    // Windows that ended are dead weight; sweeping them here keeps the table small.
    await conn.execute('delete from login_throttle where window_start <= now() - make_interval(secs => ?)', [this.windowSeconds]);
    const [count] = await conn.execute<FailureCount[]>(`select failures, ${this.retryAfterSql} from login_throttle where key = ?`, [
      this.windowSeconds,
      key,
    ]);
    return count ?? null;
  }

  /** One more failure, atomically, so parallel requests each get their own count. */
  async increment(key: string): Promise<FailureCount> {
    const [row] = await this.em.getConnection().execute<FailureCount[]>(
      `insert into login_throttle (key, window_start, failures) values (?, now(), 1)
       on conflict (key) do update set failures = login_throttle.failures + 1
       returning failures, ${this.retryAfterSql}`,
      [key, this.windowSeconds],
    );
    return row;
  }

  async reset(key: string) {
    await this.em.getConnection().execute('delete from login_throttle where key = ?', [key]);
  }

  private readonly retryAfterSql = 'extract(epoch from window_start + make_interval(secs => ?) - now()) as retry_after';
}

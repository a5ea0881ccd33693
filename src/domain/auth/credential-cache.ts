/** Who a token or session cookie stands for, as the database said at lookup time. */
export interface CachedCredential {
  userId: string;
  sysadmin: boolean;
  /** The token's or session's own expiry, honoured on every hit. */
  expiresAt: Date;
  /** Tokens only: the row to stamp, and when it was last stamped (written at most once a minute). */
  tokenId?: string;
  lastUsedAt?: Date | null;
}

/** A cache key, also the payload of the notification that drops it: `token:<sha256>`, `session:<sha256>`. */
export type CredentialKey = `token:${string}` | `session:${string}`;

const TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;

/**
 * This process's short-lived memory of token and session lookups, keyed by the secret's hash. It is
 * only as good as its invalidation: the process that revokes drops its own entry at once, and every
 * other process drops it on the `almanac_auth` notification (credential-follower.ts), which a hit
 * waits to have heard. While that listener is not connected the cache holds nothing and stores
 * nothing, since a revocation made meanwhile would never reach it. The TTL is a backstop.
 */
export class CredentialCache {
  private readonly entries = new Map<CredentialKey, CachedCredential & { cachedAt: number }>();
  /** Bumped by every invalidation: a lookup that overlapped one may have read the old state, so it is not kept. */
  private generation = 0;
  private listening = false;
  /** Resolves true once every notification sent before the call has been handled (the follower's). */
  private heard: () => Promise<boolean> = async () => false;

  /**
   * The cached credential, once every notification committed before this call has been heard: another
   * process's revocation answered its caller before this request could arrive, so it must count here at
   * once. That costs a round trip on the listening connection, shared by the lookups waiting on it; still
   * cheaper for the database than the lookup itself, which takes a pooled connection and a join.
   */
  async get(key: CredentialKey): Promise<CachedCredential | undefined> {
    if (!this.holds(key)) return undefined;
    if (!(await this.heard())) return undefined;
    return this.holds(key);
  }

  /** The entry as it stands, without waiting for notifications on their way. */
  holds(key: CredentialKey) {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    const now = Date.now();
    if (now - entry.cachedAt > TTL_MS || entry.expiresAt.getTime() <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  /** Call before reading the database; the returned function keeps what was read unless something was invalidated meanwhile. */
  beginLookup(): (key: CredentialKey, value: CachedCredential) => void {
    const generation = this.generation;
    return (key, value) => {
      if (!this.listening || generation !== this.generation) return;
      // Oldest first (a Map keeps insertion order): a flood of distinct secrets cannot grow memory without bound.
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, { ...value, cachedAt: Date.now() });
    };
  }

  forget(key: CredentialKey) {
    this.generation++;
    this.entries.delete(key);
  }

  /** Every token and session of a user: their state, sysadmin flag or existence changed. */
  forgetUser(userId: string) {
    this.generation++;
    for (const [key, entry] of this.entries) if (entry.userId === userId) this.entries.delete(key);
  }

  /** A notification payload from the `almanac_auth` channel: `user:<id>` or a cache key. */
  forgetNotified(payload: string) {
    if (payload.startsWith('user:')) this.forgetUser(payload.slice('user:'.length));
    else this.forget(payload as CredentialKey);
  }

  /** The follower's connection state: on either edge everything is dropped, since notifications may have been missed. */
  setListening(listening: boolean, heard?: () => Promise<boolean>) {
    if (heard) this.heard = heard;
    this.listening = listening;
    this.generation++;
    this.entries.clear();
  }
}

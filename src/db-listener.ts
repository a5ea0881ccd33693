import pg from 'pg';
import type { Logger } from 'pino';

const RECONNECT_MS = 2_000;
/** A round trip the listening connection does not answer within this is taken for a dead connection. */
const SYNC_TIMEOUT_MS = 5_000;

export interface ChannelListener {
  /** What the channel says: a payload per NOTIFY. */
  onNotify(payload: string): void;
  /** LISTEN holds: from here on no notification is missed. */
  onListening?(): void;
  /** The connection is gone (a new one is tried every 2 s): notifications may be missed meanwhile. */
  onLost?(): void;
  /** The warning logged when the connection is lost, saying what that means for this listener. */
  lostMessage: string;
}

export interface ListeningChannel {
  /**
   * Resolves true once every notification committed before the call has reached `onNotify`: a round trip
   * on the listening connection, since PostgreSQL sends a listener the notifications signalled to it before
   * it reports a query done. False when the connection is not listening (notifications may be missed).
   * Calls made while a round trip is out share the next one.
   */
  sync(): Promise<boolean>;
  stop(): Promise<void>;
}

/**
 * LISTEN on `channel` over a connection of its own, outside the ORM's pool (a pool that is closing waits
 * for what it lent out), re-established every 2 s while it is down. Keep-alive probes notice a connection
 * that died silently.
 */
export function listenToChannel(connectionString: string, channel: string, listener: ChannelListener, log: Logger): ListeningChannel {
  let stopped = false;
  let connection: pg.Client | null = null;
  /** The connection once LISTEN holds, and how to give it up. */
  let listening: { client: pg.Client; drop(err: Error): void } | null = null;
  let retry: NodeJS.Timeout | undefined;
  let waiting: Array<(synced: boolean) => void> = [];
  let syncing = false;

  const connect = async () => {
    if (stopped) return;
    // Named for operators (and tests) looking at pg_stat_activity, whose `query` shows only the last round trip.
    const client = new pg.Client({
      connectionString,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      application_name: `almanac listen ${channel}`,
    });
    connection = client;
    let lostOnce = false;
    const lost = (err?: Error) => {
      if (lostOnce || stopped) return;
      lostOnce = true;
      listening = null;
      listener.onLost?.();
      log.warn({ err }, listener.lostMessage);
      connection = null;
      void client.end().catch(() => undefined);
      retry = setTimeout(() => void connect(), RECONNECT_MS);
    };
    // Kept for the client's whole life: a connection that dies (PostgreSQL stopping first, as on Ctrl-C)
    // emits `error`, and an unheard one would crash the process.
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (message) => {
      if (message.channel === channel && message.payload) listener.onNotify(message.payload);
    });
    try {
      await client.connect();
      await client.query(`listen ${channel}`);
      if (!lostOnce && !stopped) {
        listening = { client, drop: lost };
        listener.onListening?.();
      }
    } catch (err) {
      lost(err as Error);
    }
  };
  void connect();

  // One round trip at a time; whoever asked while it was out waits for the next, which is sent after them.
  const roundTrips = async () => {
    syncing = true;
    while (waiting.length) {
      const batch = waiting;
      waiting = [];
      const held = listening;
      let synced = false;
      if (held) {
        let timer: NodeJS.Timeout | undefined;
        const deadline = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), SYNC_TIMEOUT_MS)));
        const answer = await Promise.race([
          held.client.query('select 1').then(
            () => 'answered' as const,
            () => 'failed' as const,
          ),
          deadline,
        ]);
        clearTimeout(timer);
        synced = answer === 'answered' && listening === held;
        // A connection that does not answer is given up for a new one; meanwhile the listener is told that
        // notifications may be missed.
        if (answer === 'timeout') held.drop(new Error(`no answer to a round trip in ${SYNC_TIMEOUT_MS} ms`));
      }
      for (const resolve of batch) resolve(synced);
    }
    syncing = false;
  };

  return {
    sync() {
      if (!listening) return Promise.resolve(false);
      return new Promise<boolean>((resolve) => {
        waiting.push(resolve);
        if (!syncing) void roundTrips();
      });
    },
    async stop() {
      stopped = true;
      clearTimeout(retry);
      const held = connection;
      connection = null;
      await held?.end().catch(() => undefined);
    },
  };
}

import pg from 'pg';
import type { Logger } from 'pino';

const RECONNECT_MS = 2_000;

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

/**
 * LISTEN on `channel` over a connection of its own, outside the ORM's pool (a pool that is closing waits
 * for what it lent out), re-established every 2 s while it is down. Keep-alive probes notice a connection
 * that died silently.
 */
export function listenToChannel(
  connectionString: string,
  channel: string,
  listener: ChannelListener,
  log: Logger,
): { stop(): Promise<void> } {
  let stopped = false;
  let connection: pg.Client | null = null;
  let retry: NodeJS.Timeout | undefined;

  const connect = async () => {
    if (stopped) return;
    const client = new pg.Client({ connectionString, keepAlive: true, keepAliveInitialDelayMillis: 10_000 });
    connection = client;
    let lostOnce = false;
    const lost = (err?: Error) => {
      if (lostOnce || stopped) return;
      lostOnce = true;
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
      if (!lostOnce && !stopped) listener.onListening?.();
    } catch (err) {
      lost(err as Error);
    }
  };
  void connect();

  return {
    async stop() {
      stopped = true;
      clearTimeout(retry);
      const held = connection;
      connection = null;
      await held?.end().catch(() => undefined);
    },
  };
}

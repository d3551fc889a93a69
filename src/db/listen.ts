import pg from 'pg';
import type { Deps } from '../core/context.js';

const RECONNECT_MAX_MS = 5_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms).unref());

export interface Listener {
  close(): Promise<void>;
}

/** A listener whose connection also answers queries (reads that must not queue behind the pool). */
export interface ListeningConnection extends Listener {
  query<R extends pg.QueryResultRow>(text: string | pg.QueryConfig, values?: unknown[]): Promise<pg.QueryResult<R>>;
  connected(): boolean;
}

/**
 * A LISTEN connection of its own on one channel. `onPayload(payload)` on each notification;
 * `onPayload(null)` after a reconnect, since notifications sent while no connection listened
 * are lost and whatever they would have said must be assumed.
 */
export async function listenChannel(deps: Pick<Deps, 'db' | 'log'>, channel: string, name: string, onPayload: (payload: string | null) => void): Promise<ListeningConnection> {
  let client: pg.Client | null = null;
  let closed = false;

  async function connect(): Promise<void> {
    const c = new pg.Client({ ...deps.db.connection, application_name: `souk-${name}` });
    c.on('notification', (msg) => {
      if (msg.channel === channel) onPayload(msg.payload ?? '');
    });
    const lost = (err?: Error) => {
      if (client !== c) return;
      client = null;
      c.removeAllListeners('notification');
      c.end().catch(() => {});
      if (!closed) {
        deps.log.warn({ err: err?.message ?? 'closed' }, `${name}: LISTEN connection lost, reconnecting`);
        void reconnect();
      }
    };
    c.on('error', lost);
    c.on('end', () => lost());
    try {
      await c.connect();
      await c.query(`listen ${channel}`);
    } catch (err) {
      c.removeAllListeners();
      c.on('error', () => {});
      await c.end().catch(() => {});
      throw err;
    }
    client = c;
  }

  async function reconnect(): Promise<void> {
    let delay = 100;
    while (!closed) {
      await sleep(delay);
      if (closed) return;
      try {
        await connect();
        onPayload(null);
        return;
      } catch (err) {
        deps.log.error({ err: (err as Error).message }, `${name}: LISTEN reconnect failed`);
        delay = Math.min(delay * 2, RECONNECT_MAX_MS);
      }
    }
  }

  await connect();
  return {
    query(text, values) {
      if (!client) return Promise.reject(new Error(`the ${name} LISTEN connection is down`));
      return client.query(text as string, values);
    },
    connected: () => client !== null,
    async close() {
      closed = true;
      const c = client;
      client = null;
      await c?.end().catch(() => {});
    },
  };
}

import { request, type Agent, type ClientRequest } from 'node:http';
import { createClient } from 'graphql-sse';
import type { ExecutionResult } from 'graphql';

export interface SseMessage {
  id?: string;
  event?: string;
  data: string;
}

/** Resolves once `pick()` returns a value; rejects after `ms`. */
async function until<T>(pick: () => T | undefined, ms: number, what: () => string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = pick();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out: ${what()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * A raw server-sent-events reader over fetch, the way a browser's EventSource parses a stream.
 * `startReading`: the body is not read before it settles (a reader that falls behind).
 */
export async function openSse(url: string, headers: Record<string, string> = {}, opts: { startReading?: Promise<unknown> } = {}) {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const messages: SseMessage[] = [];
  const comments: string[] = [];
  let ended = false;
  let retry: number | null = null;
  const reading = (async () => {
    if (!res.body || !/text\/event-stream/.test(res.headers.get('content-type') ?? '')) return;
    const decoder = new TextDecoder();
    let buf = '';
    try {
      await opts.startReading;
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buf += decoder.decode(chunk, { stream: true });
        let at: number;
        while ((at = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, at);
          buf = buf.slice(at + 2);
          const msg: SseMessage = { data: '' };
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else if (line.startsWith('id: ')) msg.id = line.slice(4);
            else if (line.startsWith('event: ')) msg.event = line.slice(7);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
            else if (line.startsWith('retry: ')) retry = Number(line.slice(7));
          }
          if (data.length) {
            msg.data = data.join('\n');
            messages.push(msg);
          }
        }
      }
    } catch {
      // Aborted by close() or cut by the server: `ended` tells.
    } finally {
      ended = true;
    }
  })();
  return {
    status: res.status,
    headers: res.headers,
    messages,
    comments,
    get ended() {
      return ended;
    },
    get retry() {
      return retry;
    },
    /** The parsed `data:` of each message. */
    events: () => messages.map((m) => JSON.parse(m.data)),
    waitFor: (count: number, ms = 10_000) =>
      until(() => (messages.length >= count ? messages.slice() : undefined), ms, () => `${count} SSE messages, got ${messages.length}`),
    waitForComment: (text: string, ms = 10_000) => until(() => (comments.includes(text) ? true : undefined), ms, () => `comment "${text}"`),
    async close() {
      abort.abort();
      await reading;
    },
    /** For error responses: the body as JSON. */
    json: () => res.json(),
  };
}

export type SseStream = Awaited<ReturnType<typeof openSse>>;

export const STORE_EVENTS = `subscription($storeId: ID!, $events: [String!]) { storeEvents(storeId: $storeId, events: $events) { id event timestamp storeId data } }`;

/** One graphql-sse subscription (distinct connections mode) with every result kept. */
export function gqlSubscribe(baseUrl: string, token: string | null, query: string, variables: Record<string, unknown>) {
  const client = createClient({
    url: `${baseUrl}/graphql/stream`,
    headers: token ? { Authorization: `Bearer ${token}` } : {},
    retryAttempts: 0,
  });
  const results: ExecutionResult<any>[] = [];
  let completed = false;
  let failure: unknown = null;
  let onConnected!: () => void;
  const connected = new Promise<void>((r) => (onConnected = r));
  const dispose = client.subscribe(
    { query, variables },
    {
      next: (r) => {
        results.push(r as ExecutionResult<any>);
      },
      error: (err) => {
        failure = err;
        completed = true;
      },
      complete: () => {
        completed = true;
      },
    },
    { connected: () => onConnected() },
  );
  return {
    results,
    connected,
    get completed() {
      return completed;
    },
    get failure() {
      return failure;
    },
    /** The storeEvents payloads received so far. */
    events: () => results.filter((r) => r.data).map((r) => r.data.storeEvents),
    waitFor: (count: number, ms = 10_000) =>
      until(() => (results.length >= count ? results.slice() : undefined), ms, () => `${count} results, got ${results.length}`),
    waitForEnd: (ms = 10_000) => until(() => (completed ? true : undefined), ms, () => 'the subscription to end'),
    close() {
      dispose();
      client.dispose();
    },
  };
}

/**
 * A long event history for each store, written directly (not through the API): `count` orderUpdated
 * events whose order carries `bytes` characters of filler.
 */
export async function writeHistory(databaseUrl: string, storeIds: string[], count: number, bytes: number): Promise<void> {
  const pg = (await import('pg')).default;
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    for (const storeId of storeIds) {
      await db.query(
        `with s as (insert into store_event_seqs as q (store_id, seq) values ($1, $2)
                    on conflict (store_id) do update set seq = q.seq + $2 returning seq)
         insert into store_events (store_id, seq, event, data, created_at)
         select $1, g, 'orderUpdated', jsonb_build_object('store_id', $1::text, 'order', jsonb_build_object('id', 'ord_old', 'customerName', repeat('x', $3))), now()
         from s, generate_series(s.seq - $2 + 1, s.seq) g`,
        [storeId, count, bytes],
      );
    }
  } finally {
    await db.end();
  }
}

/**
 * A reader over a bare HTTP request, without fetch or a client library, so that thousands fit in
 * one process: a REST event stream (GET) or, with `graphql`, a graphql-sse subscription in
 * distinct-connections mode (POST). `onData` gets the `data:` of each message; resolves once the
 * response has begun (the reader is registered then).
 */
export function rawSse(
  url: string,
  token: string,
  graphql: { query: string; variables: Record<string, unknown> } | null,
  onData: (data: string) => void,
  agent?: Agent,
): Promise<{ req: ClientRequest; readonly ended: boolean }> {
  return new Promise((resolve, reject) => {
    const body = graphql ? JSON.stringify(graphql) : undefined;
    const req = request(
      url,
      {
        method: graphql ? 'POST' : 'GET',
        agent,
        headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream', ...(body ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`${url} answered ${res.statusCode}`));
        let ended = false;
        res.setEncoding('utf8');
        let buf = '';
        res.on('data', (chunk: string) => {
          buf += chunk;
          let at: number;
          while ((at = buf.indexOf('\n\n')) >= 0) {
            const block = buf.slice(0, at);
            buf = buf.slice(at + 2);
            const line = block.startsWith('data: ') ? 0 : block.indexOf('\ndata: ') + 1;
            if (line === 0 && !block.startsWith('data: ')) continue;
            const end = block.indexOf('\n', line);
            onData(block.slice(line + 6, end < 0 ? undefined : end));
          }
        });
        res.on('close', () => (ended = true));
        resolve({
          req,
          get ended() {
            return ended;
          },
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * What the local carrier fakes share: a loopback server that logs every call, can fail, can
 * drop the answer to a creation after making it, and Algeria's wilayas and some communes.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WILAYAS } from './yalidine.js';

export { WILAYAS };

export interface FakeCommune {
  name: string;
  wilaya: number;
  /** A postal code that names the commune (and its stop desk when it has one). */
  code: string;
  desk: boolean;
}

/** Three communes per wilaya; Alger's are real ones. */
export function fakeCommunes(): FakeCommune[] {
  const out: FakeCommune[] = [];
  for (const [code, name] of WILAYAS) {
    const names = code === 16 ? ['Alger Centre', 'Hydra', 'Bordj El Kiffan'] : [name, `${name} Nord`, `${name} Sud`];
    names.forEach((n, i) => out.push({ name: n, wilaya: code, code: String(code * 100 + i + 1), desk: i !== 1 }));
  }
  return out;
}

export const fold = (s: string) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').trim().toLowerCase();

/** A minimal one-page PDF, as the label endpoints answer. */
export const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

export interface FakeCall {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: unknown;
}

export interface FakeRequest extends FakeCall {
  req: IncomingMessage;
  res: ServerResponse;
}

export abstract class CarrierFake {
  server!: Server;
  /** The origin, e.g. http://127.0.0.1:40123. */
  origin = '';
  calls: FakeCall[] = [];
  /** Answer 500 to everything while set. */
  failing = false;
  /** Answer 429 (with Retry-After) to everything while set. */
  limited = false;
  /** Creations to make and then drop the connection of (the answer is lost). */
  dropCreates = 0;
  communes = fakeCommunes();

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.receive(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }

  pdf(res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'application/pdf' });
    res.end(PDF);
  }

  /** Ends a creation's connection without an answer, once per `dropCreates`; true when it did. */
  drop(r: FakeRequest): boolean {
    if (this.dropCreates <= 0) return false;
    this.dropCreates--;
    r.req.socket.destroy();
    return true;
  }

  /** Answers one request; false when nothing matched (404). */
  protected abstract route(r: FakeRequest): boolean | Promise<boolean>;

  private async receive(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const u = new URL(req.url ?? '/', 'http://x');
    let body: unknown = undefined;
    if (chunks.length) {
      const raw = Buffer.concat(chunks).toString('utf8');
      try {
        body = JSON.parse(raw);
      } catch {
        return this.json(res, 400, { message: 'Malformed JSON' });
      }
    }
    const call = { method: req.method ?? 'GET', path: u.pathname, query: u.searchParams, headers: req.headers, body };
    this.calls.push(call);
    if (this.failing) return this.json(res, 500, { message: 'Server Error' });
    if (this.limited) return this.json(res, 429, { message: 'Too Many Attempts.' }, { 'retry-after': '42' });
    if (!(await this.route({ ...call, req, res })) && !res.headersSent) this.json(res, 404, { message: 'Not Found' });
  }
}

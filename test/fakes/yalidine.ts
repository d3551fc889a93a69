/**
 * A local Yalidine: the API's wire shape (X-API-ID/X-API-TOKEN, paged lists, parcels created
 * from an array and answered keyed by order_id, quota headers then 429) and the webhook batches
 * Yalidine sends (`{type, events}` signed with X-YALIDINE-SIGNATURE), for tests.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createHmac, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';

export const WILAYAS: Array<[number, string]> = [
  [1, 'Adrar'], [2, 'Chlef'], [3, 'Laghouat'], [4, 'Oum El Bouaghi'], [5, 'Batna'], [6, 'Béjaïa'], [7, 'Biskra'], [8, 'Béchar'],
  [9, 'Blida'], [10, 'Bouira'], [11, 'Tamanrasset'], [12, 'Tébessa'], [13, 'Tlemcen'], [14, 'Tiaret'], [15, 'Tizi Ouzou'], [16, 'Alger'],
  [17, 'Djelfa'], [18, 'Jijel'], [19, 'Sétif'], [20, 'Saïda'], [21, 'Skikda'], [22, 'Sidi Bel Abbès'], [23, 'Annaba'], [24, 'Guelma'],
  [25, 'Constantine'], [26, 'Médéa'], [27, 'Mostaganem'], [28, "M'Sila"], [29, 'Mascara'], [30, 'Ouargla'], [31, 'Oran'], [32, 'El Bayadh'],
  [33, 'Illizi'], [34, 'Bordj Bou Arreridj'], [35, 'Boumerdès'], [36, 'El Tarf'], [37, 'Tindouf'], [38, 'Tissemsilt'], [39, 'El Oued'],
  [40, 'Khenchela'], [41, 'Souk Ahras'], [42, 'Tipaza'], [43, 'Mila'], [44, 'Aïn Defla'], [45, 'Naâma'], [46, 'Aïn Témouchent'],
  [47, 'Ghardaïa'], [48, 'Relizane'], [49, 'Timimoun'], [50, 'Bordj Badji Mokhtar'], [51, 'Ouled Djellal'], [52, 'Béni Abbès'],
  [53, 'In Salah'], [54, 'In Guezzam'], [55, 'Touggourt'], [56, 'Djanet'], [57, "El M'Ghair"], [58, 'El Meniaa'],
];
/** Wilayas Yalidine does not deliver to, in this fake. */
const UNDELIVERABLE = new Set([50, 54]);
const ALGER_COMMUNES: Array<[number, string, boolean]> = [
  [1601, 'Alger Centre', true], [1602, "Sidi M'Hamed", false], [1603, 'El Madania', false], [1616, 'Hydra', true],
  [1630, 'Bordj El Kiffan', true], [1644, 'Ouled Fayet', false],
];

interface Commune {
  id: number;
  name: string;
  wilaya_id: number;
  wilaya_name: string;
  has_stop_desk: number;
  is_deliverable: number;
}
interface Center {
  center_id: number;
  name: string;
  address: string;
  commune_id: number;
  commune_name: string;
  wilaya_id: number;
  wilaya_name: string;
}

function geography() {
  const communes: Commune[] = [];
  const centers: Center[] = [];
  for (const [code, name] of WILAYAS) {
    const list: Array<[number, string, boolean]> = code === 16 ? ALGER_COMMUNES : [[code * 100 + 1, name, true], [code * 100 + 2, `${name} Nord`, false], [code * 100 + 3, `${name} Sud`, code % 2 === 0]];
    for (const [id, cname, desk] of list) {
      communes.push({ id, name: cname, wilaya_id: code, wilaya_name: name, has_stop_desk: desk ? 1 : 0, is_deliverable: UNDELIVERABLE.has(code) ? 0 : 1 });
      if (desk) centers.push({ center_id: id * 100 + 1, name: `Centre ${cname}`, address: `Rue du centre, ${cname}`, commune_id: id, commune_name: cname, wilaya_id: code, wilaya_name: name });
    }
  }
  return { communes, centers };
}

export interface FakeParcel {
  tracking: string;
  order_id: string;
  firstname: string;
  familyname: string;
  contact_phone: string;
  address: string;
  is_stopdesk: number;
  stopdesk_id: number | null;
  from_wilaya_name: string;
  to_commune_id: number;
  to_commune_name: string;
  to_wilaya_id: number;
  to_wilaya_name: string;
  product_list: string;
  price: number;
  delivery_fee: number;
  freeshipping: number;
  date_creation: string;
  date_last_status: string;
  last_status: string;
  payment_status: string;
  label: string;
}

export interface WebhookEvent {
  event_id: string;
  occurred_at: string;
  data: Record<string, unknown>;
}

/** "YYYY-MM-DD HH:MM:SS" in Algiers time (UTC+1), as Yalidine writes dates. */
export function yalidineTime(d: Date): string {
  return new Date(d.getTime() + 3600_000).toISOString().slice(0, 19).replace('T', ' ');
}

const fold = (s: string) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').trim().toLowerCase();

export class FakeYalidine {
  server!: Server;
  url = '';
  /** API id → token of the accounts that exist. */
  accounts = new Map<string, string>([['yal-test-id', 'yal-test-token-0123456789abcdef']]);
  parcels = new Map<string, FakeParcel>();
  /** Every call, in order (path without the /v1 prefix). */
  calls: Array<{ method: string; path: string; query: URLSearchParams; body: unknown }> = [];
  /** Calls answered before 429; null: unlimited. Reset with resetQuota(). */
  quotaLimit: number | null = null;
  private used = 0;
  /** Parcel creations to accept and then drop the connection of (the answer is lost). */
  dropCreates = 0;
  /** Delay before answering parcel creations. */
  createDelayMs = 0;
  /** Answer 500 to everything while set. */
  failing = false;
  private geo = geography();
  private seq = 0;

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  resetQuota(limit: number | null = null): void {
    this.quotaLimit = limit;
    this.used = 0;
  }

  /** Parcels Yalidine holds for an order id (more than one is a duplicate shipment). */
  parcelsOf(orderId: string): FakeParcel[] {
    return [...this.parcels.values()].filter((p) => p.order_id === orderId);
  }

  creations(): number {
    return this.calls.filter((c) => c.method === 'POST' && c.path === '/parcels').length;
  }

  private send(res: ServerResponse, status: number, body: unknown): void {
    const left = this.quotaLimit === null ? 1000 : Math.max(0, this.quotaLimit - this.used);
    res.writeHead(status, {
      'content-type': 'application/json',
      'x-second-quota-left': String(Math.min(5, left)),
      'x-minute-quota-left': String(Math.min(50, left)),
      'x-hour-quota-left': String(Math.min(1000, left)),
      'x-day-quota-left': String(Math.min(10000, left)),
    });
    res.end(JSON.stringify(body));
  }

  private page<T>(res: ServerResponse, rows: T[], q: URLSearchParams): void {
    const size = Math.min(1000, Math.max(1, Number(q.get('page_size') ?? 100) || 100));
    const page = Math.max(1, Number(q.get('page') ?? 1) || 1);
    const data = rows.slice((page - 1) * size, page * size);
    this.send(res, 200, { has_more: page * size < rows.length, total_data: rows.length, data, links: { self: `${this.url}/?page=${page}` } });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const u = new URL(req.url ?? '/', 'http://x');
    const path = u.pathname.replace(/^\/v1/, '').replace(/\/+$/, '') || '/';
    let body: unknown = undefined;
    if (chunks.length) {
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return this.send(res, 400, { error: { code: 400, message: 'Malformed JSON' } });
      }
    }
    this.calls.push({ method: req.method ?? 'GET', path, query: u.searchParams, body });
    const id = req.headers['x-api-id'];
    const token = req.headers['x-api-token'];
    if (typeof id !== 'string' || typeof token !== 'string' || this.accounts.get(id) !== token) {
      return this.send(res, 401, { error: { code: 401, message: 'Unauthorized: bad API ID or API TOKEN' } });
    }
    if (this.quotaLimit !== null && ++this.used > this.quotaLimit) {
      this.used = this.quotaLimit + 1;
      return this.send(res, 429, { error: { code: 429, message: 'Too many requests' } });
    }
    if (this.failing) return this.send(res, 500, { error: { code: 500, message: 'Internal error' } });
    const q = u.searchParams;
    const method = req.method;
    if (method === 'GET' && path === '/wilayas') {
      return this.page(res, WILAYAS.map(([code, name]) => ({ id: code, name, zone: code === 16 ? 1 : 1 + (code % 4), is_deliverable: UNDELIVERABLE.has(code) ? 0 : 1 })), q);
    }
    if (method === 'GET' && path === '/communes') {
      const w = q.get('wilaya_id');
      return this.page(res, this.geo.communes.filter((c) => !w || String(c.wilaya_id) === w), q);
    }
    if (method === 'GET' && path === '/centers') {
      const w = q.get('wilaya_id');
      return this.page(res, this.geo.centers.filter((c) => !w || String(c.wilaya_id) === w), q);
    }
    if (method === 'GET' && path === '/fees') {
      const from = Number(q.get('from_wilaya_id'));
      const to = Number(q.get('to_wilaya_id'));
      const toW = WILAYAS.find(([c]) => c === to);
      const fromW = WILAYAS.find(([c]) => c === from);
      if (!toW || !fromW) return this.send(res, 404, { error: { code: 404, message: 'Wilaya not found' } });
      const home = from === to ? 400 : 600 + 100 * (Math.abs(from - to) % 4);
      const perCommune: Record<string, unknown> = {};
      for (const c of this.geo.communes.filter((x) => x.wilaya_id === to)) {
        perCommune[String(c.id)] = { commune_id: c.id, commune_name: c.name, express_home: home, express_desk: c.has_stop_desk ? home - 200 : null, economic_home: null, economic_desk: null };
      }
      return this.send(res, 200, { from_wilaya_name: fromW[1], to_wilaya_name: toW[1], zone: 1 + (to % 4), retour_fee: 250, cod_percentage: 1, insurance_percentage: 1, oversize_fee: 50, per_commune: perCommune });
    }
    if (method === 'GET' && path === '/parcels') {
      const trackings = q.get('tracking')?.split(',');
      const orders = q.get('order_id')?.split(',');
      const rows = [...this.parcels.values()].filter((p) => (!trackings || trackings.includes(p.tracking)) && (!orders || orders.includes(p.order_id)));
      return this.page(res, rows, q);
    }
    if (method === 'POST' && path === '/parcels') return this.create(req, res, body);
    const del = /^\/parcels\/([^/]+)$/.exec(path);
    if (method === 'DELETE' && del) {
      const p = this.parcels.get(decodeURIComponent(del[1]));
      const deleted = !!p && fold(p.last_status) === fold('En préparation');
      if (deleted) this.parcels.delete(p!.tracking);
      return this.send(res, 200, [{ tracking: decodeURIComponent(del[1]), deleted }]);
    }
    return this.send(res, 404, { error: { code: 404, message: 'Not found' } });
  }

  private async create(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    if (!Array.isArray(body) || body.length === 0) return this.send(res, 400, { error: { code: 400, message: 'Expected an array of parcels' } });
    const ids = body.map((p) => (p as { order_id?: unknown }).order_id);
    if (new Set(ids).size !== ids.length) return this.send(res, 400, { error: { code: 400, message: 'Duplicated order_id in the request' } });
    const out: Record<string, unknown> = {};
    const importId = ++this.seq;
    for (const raw of body as Array<Record<string, any>>) {
      const orderId = String(raw.order_id ?? '');
      const fail = (message: string) => (out[orderId] = { success: false, order_id: orderId, tracking: null, import_id: null, label: null, message });
      const toW = WILAYAS.find(([, n]) => fold(n) === fold(String(raw.to_wilaya_name ?? '')));
      const fromW = WILAYAS.find(([, n]) => fold(n) === fold(String(raw.from_wilaya_name ?? '')));
      const commune = toW && this.geo.communes.find((c) => c.wilaya_id === toW[0] && fold(c.name) === fold(String(raw.to_commune_name ?? '')));
      for (const f of ['order_id', 'firstname', 'familyname', 'contact_phone', 'address', 'product_list']) {
        if (typeof raw[f] !== 'string' || !raw[f]) {
          fail(`${f} is required`);
          break;
        }
      }
      if (out[orderId]) continue;
      if (!fromW) fail('from_wilaya_name is invalid');
      else if (!toW) fail('to_wilaya_name is invalid');
      else if (!commune) fail('to_commune_name is invalid');
      else if (!commune.is_deliverable) fail('This commune is not deliverable');
      else if (!Number.isInteger(raw.price) || raw.price < 0 || raw.price > 150000) fail('price must be an integer between 0 and 150000');
      else if (raw.is_stopdesk && !this.geo.centers.some((c) => String(c.center_id) === String(raw.stopdesk_id) && c.wilaya_id === toW[0])) fail('stopdesk_id is invalid');
      if (out[orderId]) continue;
      const tracking = `yal-${randomBytes(3).toString('hex').toUpperCase()}`;
      const now = yalidineTime(new Date());
      this.parcels.set(tracking, {
        tracking,
        order_id: orderId,
        firstname: raw.firstname,
        familyname: raw.familyname,
        contact_phone: raw.contact_phone,
        address: raw.address,
        is_stopdesk: raw.is_stopdesk ? 1 : 0,
        stopdesk_id: raw.is_stopdesk ? Number(raw.stopdesk_id) : null,
        from_wilaya_name: fromW![1],
        to_commune_id: commune!.id,
        to_commune_name: commune!.name,
        to_wilaya_id: toW![0],
        to_wilaya_name: toW![1],
        product_list: raw.product_list,
        price: raw.price,
        delivery_fee: raw.is_stopdesk ? 400 : 600,
        freeshipping: raw.freeshipping ? 1 : 0,
        date_creation: now,
        date_last_status: now,
        last_status: 'En préparation',
        payment_status: 'not-ready',
        label: `https://yalidine.app/app/bordereau.php?tracking=${tracking}&token=${randomBytes(8).toString('hex')}`,
      });
      out[orderId] = { success: true, order_id: orderId, tracking, import_id: importId, label: this.parcels.get(tracking)!.label, labels: `https://yalidine.app/app/bordereau.php?import_id=${importId}` };
    }
    if (this.createDelayMs) await new Promise((r) => setTimeout(r, this.createDelayMs));
    if (this.dropCreates > 0) {
      // The parcels exist at Yalidine, but the answer never arrives.
      this.dropCreates--;
      req.socket.destroy();
      return;
    }
    this.send(res, 200, out);
  }

  /** Moves a parcel to a status at Yalidine and returns the webhook event that reports it. */
  advance(tracking: string, status: string, at = new Date(), reason = ''): WebhookEvent {
    const p = this.parcels.get(tracking);
    if (!p) throw new Error(`no parcel ${tracking}`);
    p.last_status = status;
    p.date_last_status = yalidineTime(at);
    return this.statusEvent(p, status, at, reason);
  }

  /** A status event for a parcel, without changing it here (a late or out-of-order delivery). */
  statusEvent(p: Pick<FakeParcel, 'tracking' | 'order_id'>, status: string, at: Date, reason = ''): WebhookEvent {
    return {
      event_id: `evt_${randomBytes(8).toString('hex')}`,
      occurred_at: yalidineTime(at),
      data: { tracking: p.tracking, order_id: p.order_id, status, reason, date_status: yalidineTime(at) },
    };
  }

  paymentEvent(tracking: string, paymentStatus: string, at = new Date()): WebhookEvent {
    const p = this.parcels.get(tracking)!;
    p.payment_status = paymentStatus;
    return { event_id: `evt_${randomBytes(8).toString('hex')}`, occurred_at: yalidineTime(at), data: { tracking, order_id: p.order_id, payment_status: paymentStatus } };
  }
}

/** A signed webhook batch as Yalidine posts it. */
export function webhookBatch(type: string, events: WebhookEvent[], secret: string): { body: string; signature: string } {
  const body = JSON.stringify({ type, events });
  return { body, signature: createHmac('sha256', secret).update(body).digest('hex') };
}

/** Posts a batch to a receiver the way Yalidine does; `signature` overrides the real one. */
export async function postWebhook(url: string, batch: { body: string; signature: string | null }): Promise<{ status: number; text: string; body: any }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'Yalidine-Webhook' };
  if (batch.signature !== null) headers['x-yalidine-signature'] = batch.signature;
  const res = await fetch(url, { method: 'POST', headers, body: batch.body });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, text, body };
}

export async function startFakeYalidine(): Promise<FakeYalidine> {
  return new FakeYalidine().start();
}

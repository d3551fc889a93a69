import { PARCEL } from '../../routes/fragments.js';
import { ProblemError } from '../../router.js';
import type { FeeefRoute, Param } from '../route.js';
import { arr, input, int, nnum, obj, str } from '../schema.js';
import { mapInput } from '../shapes.js';

/**
 * The carriers beyond Yalidine at Feeef's per-provider paths (its SDK's `integrations.ecotrack`,
 * `procolis`, `noest` and `zimou`). Each works through the store's one carrier
 * integration and only when that integration is of the provider the path names (else 503
 * NOT_CONFIGURED); the credentials the SDK sends along are never read: Souk uses the saved ones.
 */

type Row = Record<string, any>;

/** What each SDK integration sends with its calls (ignored). */
const CREDENTIALS: Record<string, Record<string, Param>> = {
  ecotrack: { baseUrl: { type: 'string', description: 'Ignored: the saved integration is used' }, token: { type: 'string', description: 'Ignored' } },
  procolis: { key: { type: 'string', description: 'Ignored: the saved integration is used' }, token: { type: 'string', description: 'Ignored' } },
  noest: { guid: { type: 'string', description: 'Ignored: the saved integration is used' }, token: { type: 'string', description: 'Ignored' } },
  zimou: { apiKey: { type: 'string', description: 'Ignored: the saved integration is used' } },
};
const SENDERS = ['procolis', 'noest', 'zimou'];

const FEES = 'query($storeId: ID!, $provider: String) { carrierWilayaFees(storeId: $storeId, provider: $provider) { data { wilayaCode home stopDesk } } }';
const SEND = `mutation($storeId: ID!, $input: CarrierSendInput!) { carrierSend(storeId: $storeId, input: $input) { ${PARCEL} } }`;
const STATISTICS =
  'query($storeId: ID!, $provider: String, $createdAfter: String) { carrierStatistics(storeId: $storeId, provider: $provider, createdAfter: $createdAfter) { byStatus byWilaya } }';
const WILAYAS = 'query($storeId: ID!) { carrierWilayas(storeId: $storeId) { data { code name } } }';
/** Feeef's legacy table covers at least the 58 wilayas, one [desk, home] pair each. */
const TABLE_SIZE = 58;
const TOP_WILAYAS = 10;

const feesRoute = (provider: string): FeeefRoute => ({
  method: 'GET',
  path: `/stores/{id}/integrations/${provider}/fees`,
  upstream: true,
  summary: `Feeef's legacy fee table from the store's ${provider} integration: one [desk, home] pair per wilaya, in wilaya-code order (null where it does not deliver)`,
  operation: FEES,
  query: CREDENTIALS[provider],
  response: arr(arr(nnum)),
  handle: async (call) => {
    const rows = (await call.run({ storeId: call.params.id, provider })).data as Array<{ wilayaCode: string; home: number | null; stopDesk: number | null }>;
    const size = Math.max(TABLE_SIZE, ...rows.map((r) => Number(r.wilayaCode)));
    const table: Array<Array<number | null>> = Array.from({ length: size }, () => [null, null]);
    for (const r of rows) table[Number(r.wilayaCode) - 1] = [r.stopDesk, r.home];
    return table;
  },
});

const sendRoute = (provider: string): FeeefRoute => ({
  method: 'POST',
  path: `/stores/{id}/integrations/${provider}/send`,
  upstream: true,
  summary: `Ship an order with the store's ${provider} integration {orderId} (credentials in the body are ignored)`,
  operation: SEND,
  status: 201,
  body: input({ orderId: str, ...Object.fromEntries(Object.keys(CREDENTIALS[provider]).map((k) => [k, str])) }, ['orderId']),
  response: obj({ id: str, orderId: str, tracking: { type: ['string', 'null'] }, status: str }),
  handle: async (call) => {
    const ignored = Object.fromEntries(Object.keys(CREDENTIALS[provider]).map((k) => [k, null]));
    const { orderId } = mapInput(call.body, { orderId: 'orderId', ...ignored });
    return call.run({ storeId: call.params.id, input: { orderId, provider } });
  },
});

/** Midnight today in Algiers (UTC+1 all year), as an instant. */
function algiersMidnight(now = new Date()): string {
  const local = new Date(now.getTime() + 3600_000);
  return new Date(Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate()) - 3600_000).toISOString();
}

const count = (byStatus: Record<string, number>, ...statuses: string[]) => statuses.reduce((s, k) => s + (byStatus[k] ?? 0), 0);
const sent = (byStatus: Record<string, number>) => Object.values(byStatus).reduce((a, b) => a + b, 0) - count(byStatus, 'creating', 'cancelled');

/**
 * Ecotrack's dashboard statistics, counted from the store's own Ecotrack parcels: `global`
 * over all of them, `today_act` over the parcels sent today (by their status now), `top_wilaya`
 * the ten wilayas with the most parcels.
 */
const ecotrackStatistics: FeeefRoute = {
  method: 'GET',
  path: '/stores/{id}/integrations/ecotrack/statistics',
  summary: "Ecotrack's statistics shape {top_wilaya, today_act, global} counted from the store's Ecotrack parcels",
  operation: STATISTICS,
  operations: [WILAYAS],
  response: obj({ top_wilaya: arr(obj({ wilaya_id: int, total: int, retours: int, livred: int, wilaya_name: str })), today_act: obj({}), global: obj({}) }),
  handle: async (call) => {
    const storeId = call.params.id;
    const [all, today] = await Promise.all([
      call.run({ storeId, provider: 'ecotrack' }).then((d) => d as { byStatus: Record<string, number>; byWilaya: Record<string, { total: number; delivered: number; returned: number }> }),
      call.run({ storeId, provider: 'ecotrack', createdAfter: algiersMidnight() }).then((d) => d as { byStatus: Record<string, number> }),
    ]);
    // Names come from the carrier (cached a day); statistics still answer when it cannot be asked.
    let names = new Map<string, string>();
    try {
      const wilayas = (await call.run({ storeId }, { operation: WILAYAS })).data as Row[];
      names = new Map(wilayas.map((w) => [String(w.code), String(w.name)]));
    } catch (err) {
      if (!(err instanceof ProblemError)) throw err;
    }
    const top = Object.entries(all.byWilaya)
      .filter(([code]) => /^\d+$/.test(code))
      .sort((a, b) => b[1].total - a[1].total || Number(a[0]) - Number(b[0]))
      .slice(0, TOP_WILAYAS)
      .map(([code, w]) => ({ wilaya_id: Number(code), total: w.total, retours: w.returned, livred: w.delivered, wilaya_name: names.get(code) ?? '' }));
    const total = sent(all.byStatus);
    const livred = count(all.byStatus, 'delivered');
    const retours = count(all.byStatus, 'returning', 'returned');
    return {
      top_wilaya: top,
      today_act: {
        expedie: sent(today.byStatus),
        delivered: count(today.byStatus, 'delivered'),
        returned: count(today.byStatus, 'returning', 'returned'),
        suspended: count(today.byStatus, 'on_hold'),
      },
      global: { enTraitement: total - livred - retours, livred, retours, total },
    };
  },
};

export const routes: FeeefRoute[] = [...Object.keys(CREDENTIALS).map(feesRoute), ...SENDERS.map(sendRoute), ecotrackStatistics];

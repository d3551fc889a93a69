import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { client, ownerWithStore, signup, startTestService, type Api, type ApiResponse, type TestService } from './helpers.js';

/**
 * Issue 28: deleting a store while its data is written. Every round deletes a fresh store while
 * writes of many kinds hit it at once; each answer is a 2xx, 404 or 409 (never a 5xx), the delete
 * itself succeeds, and no row of the store is left behind by a write that lost the race.
 */
const ROUNDS = 24;

let svc: TestService;
let api: Api;
before(async () => {
  svc = await startTestService();
  api = client(svc.url);
});
after(() => svc?.close());

/** Tables with a store_id column: after the delete, none keeps a row of the store. */
async function leftovers(storeId: string): Promise<string[]> {
  if (!svc.databaseUrl) return [];
  const c = new pg.Client({ connectionString: svc.databaseUrl });
  await c.connect();
  try {
    const { rows: tables } = await c.query<{ schema: string; name: string }>(
      `select table_schema as schema, table_name as name from information_schema.columns
        where column_name = 'store_id' and table_schema = 'public'
          and table_name in (select table_name from information_schema.tables where table_type = 'BASE TABLE' and table_schema = 'public')`,
    );
    const left: string[] = [];
    for (const t of tables) {
      const { rows } = await c.query(`select count(*)::int as n from "${t.name}" where store_id = $1`, [storeId]);
      if (rows[0].n > 0) left.push(`${t.name} (${rows[0].n})`);
    }
    return left;
  } finally {
    await c.end();
  }
}

type Write = { label: string; run: () => Promise<ApiResponse> };

test('deleting a store while writes of every kind hit it: 2xx, 404 or 409, never a 5xx, nothing left behind', async () => {
  const member = await signup(api, 'Member');
  let sent = 1;
  const rounds = await Promise.all(
    Array.from({ length: ROUNDS }, async (_, round) => {
      const o = await ownerWithStore(api);
      const base = `/v1/stores/${o.storeId}`;
      const call = (method: string, path: string, body?: unknown) => api(method, path, { token: o.token, body, contract: false });
      const product = (await call('POST', `${base}/products`, { name: `Tea ${round}`, price: 2 })).body;
      const order = (await call('POST', `${base}/orders`, { customerName: 'Ada', items: [{ name: 'Tea', quantity: 1, price: 2 }] })).body;
      const statuses = (await call('GET', `${base}/statuses`)).body.data as Array<{ id: string; kind: string }>;
      const hook = (await call('POST', `${base}/integrations/webhooks`, { name: 'h', url: 'https://example.com/h' })).body;
      // The owner's sign-up and store, then the product, order, statuses and webhook.
      sent += 6;
      const writes: Write[] = [
        { label: 'order create', run: () => call('POST', `${base}/orders`, { customerName: 'Bo', items: [{ productId: product.id, quantity: 1 }] }) },
        { label: 'order create (no items)', run: () => call('POST', `${base}/orders`, { customerName: 'Cy' }) },
        { label: 'order update', run: () => call('PATCH', `${base}/orders/${order.id}`, { customerName: 'Di' }) },
        { label: 'order status', run: () => call('POST', `${base}/orders/${order.id}/apply`, { statusId: statuses.find((s) => s.kind === 'confirmed')?.id ?? statuses[1].id }) },
        { label: 'product create', run: () => call('POST', `${base}/products`, { name: 'New', price: 1 }) },
        { label: 'product update', run: () => call('PATCH', `${base}/products/${product.id}`, { price: 3 }) },
        // Not a status create: a new status would make the reorder's list incomplete (a fair 400).
        { label: 'status update', run: () => call('PUT', `${base}/statuses/${statuses[statuses.length - 1].id}`, { name: `Held ${round}` }) },
        { label: 'status reorder', run: () => call('PUT', `${base}/statuses/reorder`, { ids: statuses.map((s) => s.id).reverse() }) },
        { label: 'webhook create', run: () => call('POST', `${base}/integrations/webhooks`, { name: 'h2', url: 'https://example.com/h2' }) },
        { label: 'webhook update', run: () => call('PATCH', `${base}/integrations/webhooks/${hook.id}`, { name: 'h1' }) },
        { label: 'store settings', run: () => call('PATCH', base, { name: 'Renamed' }) },
        { label: 'member add', run: () => call('POST', `${base}/members`, { email: member.email, role: 'viewer' }) },
        { label: 'integration put', run: () => call('PUT', `${base}/integrations/notes`, { config: { a: 1 } }) },
        { label: 'landing page', run: () => call('POST', `${base}/product_landing_pages`, { name: 'Summer', productId: product.id, content: { blocks: [] } }) },
        { label: 'promo create', run: () => call('POST', `/v1/promos?storeId=${o.storeId}`, { code: `TEN${round}`, type: 'percentage', value: 10 }) },
        { label: 'shipping price', run: () => call('POST', `/v1/shipping_prices?storeId=${o.storeId}`, { name: 'p' }) },
        { label: 'apply many', run: () => call('POST', `${base}/orders/applyMany`, { orderIds: [order.id], statusId: statuses[1].id }) },
        { label: 'order delete', run: () => call('DELETE', `${base}/orders/${order.id}`) },
        { label: 'webhook delete', run: () => call('DELETE', `${base}/integrations/webhooks/${hook.id}`) },
        { label: 'webhook test', run: () => call('POST', `${base}/integrations/webhooks/${hook.id}/test`) },
        { label: 'integration patch', run: () => call('PATCH', `${base}/integrations/notes`, { config: { b: 2 } }) },
        { label: 'warehouse', run: () => call('POST', `/v1/inventory/warehouses?storeId=${o.storeId}`, { name: 'Main' }) },
        { label: 'shipping method', run: () => call('POST', `/v1/shipping_methods?storeId=${o.storeId}`, { name: 'm' }) },
        { label: 'brand studio', run: () => call('POST', `/v1/ai/brand-studios?storeId=${o.storeId}`, { name: 'S' }) },
        { label: 'page', run: () => call('POST', `/v1/pages?storeId=${o.storeId}`, { title: 'About', body: `# About ${round}` }) },
        { label: 'purchase order', run: () => call('POST', `/v1/finance/purchase-orders?storeId=${o.storeId}`, { supplier: { name: 'Acme' }, items: [{ name: 'Tea', qtyOrdered: 2, unitCost: 3 }] }) },
      ];
      // The delete goes out in the middle of the writes: some land before it, some after.
      const half = Math.floor(writes.length / 2);
      const answers = await Promise.all([
        ...writes.slice(0, half).map((w) => w.run()),
        call('DELETE', base),
        ...writes.slice(half).map((w) => w.run()),
      ]);
      sent += answers.length;
      const labels = [...writes.slice(0, half).map((w) => w.label), 'store delete', ...writes.slice(half).map((w) => w.label)];
      return { storeId: o.storeId, answers: answers.map((r, i) => ({ label: labels[i], status: r.status, text: r.text })) };
    }),
  );
  const bad: string[] = [];
  for (const [round, r] of rounds.entries()) {
    for (const a of r.answers) {
      const ok = a.label === 'store delete' ? a.status === 204 : (a.status >= 200 && a.status < 300) || a.status === 404 || a.status === 409;
      if (!ok) bad.push(`round ${round} ${a.label}: ${a.status} ${a.text.slice(0, 200)}`);
    }
    const left = await leftovers(r.storeId);
    if (left.length) bad.push(`round ${round}: rows left after the delete in ${left.join(', ')}`);
  }
  console.log(`# store delete races: ${ROUNDS} rounds, ${sent} requests`);
  assert.deepEqual(bad, []);
});

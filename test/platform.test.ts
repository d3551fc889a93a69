import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { startService } from '../src/service.js';
import { DELIVERY_QUEUE } from '../src/events/queue.js';
import type { CommittedEvent } from '../src/events/bus.js';
import { client, freshDatabase, signup } from './helpers.js';

/**
 * The platform services (job queue, realtime hub, mailer, auth cache) are built and started by
 * service.ts whatever module list a service is given: none of them waits for a module to set it.
 */
test('a service started with an empty module list still queues, publishes, mails and resolves callers', async () => {
  const db = await freshDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'souk-platform-'));
  const config = loadConfig({ NODE_ENV: 'test', SOUK_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', ...(db.url ? { DATABASE_URL: db.url } : {}) });
  const service = await startService(config, { modules: [] });
  try {
    assert.deepEqual(
      service.deps.modules.map((m) => m.name),
      ['queue', 'auth-cache', 'realtime'],
    );
    assert.ok(await service.deps.queue.boss.getQueue(DELIVERY_QUEUE), 'the delivery queue exists');
    assert.ok(service.deps.queue.deliveryInsert, 'the one-statement delivery insert is prepared');

    const api = client(service.url);
    const user = await signup(api);
    assert.equal((await api('GET', '/v1/users/auth', { token: user.token })).status, 200);
    const [mail] = await service.deps.orm.em.fork().getConnection().execute('select to_address from mail_outbox');
    assert.equal(mail.to_address, user.email);

    const store = await api('POST', '/v1/stores', { token: user.token, body: { name: 'Bare' } });
    assert.equal(store.status, 201, store.text);
    const seen: CommittedEvent[] = [];
    const unsubscribe = service.deps.realtime.subscribe(store.body.id, (e) => seen.push(e));
    try {
      const product = await api('POST', `/v1/stores/${store.body.id}/products`, { token: user.token, body: { name: 'Tea', price: 2 } });
      assert.equal(product.status, 201, product.text);
      for (let i = 0; i < 250 && !seen.length; i++) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(
        seen.map((e) => e.event),
        ['productCreated'],
      );
    } finally {
      unsubscribe();
    }
  } finally {
    await service.close();
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

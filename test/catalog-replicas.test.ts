import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { client, within, signup, startTestService, type Api, type TestService } from './helpers.js';
import { getOptions } from '../src/domains/options/options.cache.js';

const skip = process.env.DATABASE_URL ? false : 'needs a real PostgreSQL (DATABASE_URL): replicas share one database server';

let A: TestService;
let B: TestService;
let apiA: Api;
let apiB: Api;
let admin: Awaited<ReturnType<typeof signup>>;


describe('options on two replicas of one PostgreSQL', { skip }, () => {
  before(async () => {
    A = await startTestService();
    // A second service on the same database: its own process state, cache and LISTEN connection.
    B = await startTestService({}, { databaseUrl: A.databaseUrl, dataDir: A.dataDir });
    apiA = client(A.url);
    apiB = client(B.url);
    admin = await signup(apiA, 'Admin');
    assert.equal(admin.user.platformRole, 'admin');
  });
  after(async () => {
    await B?.close();
    await A?.close();
  });

  test('a PUT on one replica is read on the other, told by notification (20 runs)', async () => {
    const latencies: number[] = [];
    for (let run = 0; run < 20; run++) {
      const value = { run, at: Date.now() };
      const put = await apiA('PUT', '/v1/options/shared.setting', { token: admin.token, body: { value, public: true } });
      assert.ok(put.status === 201 || put.status === 200, put.text);
      // No cache expiry exists: only the notification can make B see it. The bound is for a
      // busy machine, the latencies are printed.
      const ms = await within(30_000, async () => {
        const res = await apiB('GET', '/v1/options/shared.setting', { token: admin.token });
        return res.status === 200 && res.body.value.run === run;
      });
      assert.ok(ms < Infinity, `run ${run}: B never saw the write`);
      latencies.push(ms);
      const configs = await apiB('GET', '/v1/configs');
      assert.deepEqual(configs.body.options['shared.setting'], value);
    }
    latencies.sort((a, b) => a - b);
    console.log(`options propagation A → B: median ${latencies[10].toFixed(1)} ms, max ${latencies[19].toFixed(1)} ms`);
  });

  test('a DELETE on B is gone on A, told by notification', async () => {
    await apiB('PUT', '/v1/options/to-delete', { token: admin.token, body: { value: 1 } });
    assert.ok((await within(30_000, async () => (await apiA('GET', '/v1/options/to-delete', { token: admin.token })).status === 200)) < Infinity);
    assert.equal((await apiB('DELETE', '/v1/options/to-delete', { token: admin.token })).status, 204);
    assert.ok((await within(30_000, async () => (await apiA('GET', '/v1/options/to-delete', { token: admin.token })).status === 404)) < Infinity);
  });

  test('POST /reload on one replica makes every replica re-read a change made behind their backs', async () => {
    await apiA('PUT', '/v1/options/manual', { token: admin.token, body: { value: 'old' } });
    assert.ok((await within(30_000, async () => (await apiB('GET', '/v1/options/manual', { token: admin.token })).body.value === 'old')) < Infinity);
    const c = new pg.Client({ connectionString: A.databaseUrl! });
    await c.connect();
    try {
      await c.query(`update platform_options set value = '"edited by hand"' where key = 'manual'`);
    } finally {
      await c.end();
    }
    await new Promise((r) => setTimeout(r, 200));
    assert.equal((await apiB('GET', '/v1/options/manual', { token: admin.token })).body.value, 'old', 'B serves its cache');
    const reload = await apiA('POST', '/v1/options/reload', { token: admin.token });
    assert.equal(reload.status, 200);
    assert.equal(reload.body.reloaded, true);
    assert.equal((await apiA('GET', '/v1/options/manual', { token: admin.token })).body.value, 'edited by hand');
    assert.ok((await within(30_000, async () => (await apiB('GET', '/v1/options/manual', { token: admin.token })).body.value === 'edited by hand')) < Infinity);
    assert.equal(getOptions(B.service.deps).version, reload.body.version);
  });

  test('a replica whose LISTEN connection dropped catches up after reconnecting', async () => {
    const c = new pg.Client({ connectionString: A.databaseUrl! });
    await c.connect();
    try {
      const killed = await c.query(`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'souk-options' and datname = current_database()`);
      assert.equal(killed.rowCount, 2);
      await apiA('PUT', '/v1/options/after-drop', { token: admin.token, body: { value: 'seen' } });
      const ms = await within(10_000, async () => (await apiB('GET', '/v1/options/after-drop', { token: admin.token })).status === 200);
      assert.ok(ms < 10_000, 'B never caught up');
      const back = await within(10_000, async () => {
        const { rows } = await c.query(`select count(*)::int as n from pg_stat_activity where application_name = 'souk-options' and datname = current_database()`);
        return rows[0].n === 2;
      });
      assert.ok(back < 10_000, 'the LISTEN connections did not come back');
    } finally {
      await c.end();
    }
  });
});

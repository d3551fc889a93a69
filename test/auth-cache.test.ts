import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { client, within, memberWithRole, ownerWithStore, signup, startTestService, type Api, type TestService } from './helpers.js';

const skip = process.env.DATABASE_URL ? false : 'needs a real PostgreSQL (DATABASE_URL): replicas share one database server';

let A: TestService;
let B: TestService;
let apiA: Api;
let apiB: Api;


describe('cached tokens and memberships on two replicas', { skip }, () => {
  before(async () => {
    A = await startTestService();
    B = await startTestService({}, { databaseUrl: A.databaseUrl, dataDir: A.dataDir });
    apiA = client(A.url);
    apiB = client(B.url);
  });
  after(async () => {
    await B?.close();
    await A?.close();
  });

  test('a token revoked on one replica stops working on the other within 1 s (10 runs)', async () => {
    const worst: number[] = [];
    for (let run = 0; run < 10; run++) {
      const user = await signup(apiA, `Revoked ${run}`);
      // Warm both caches: the token is now known to each replica without SQL.
      assert.equal((await apiA('GET', '/v1/users/auth', { token: user.token })).status, 200);
      assert.equal((await apiB('GET', '/v1/users/auth', { token: user.token })).status, 200);
      const signout = await apiA('POST', '/v1/users/auth/signout', { token: user.token });
      assert.ok(signout.status < 300, signout.text);
      const ms = await within(1000, async () => (await apiB('GET', '/v1/users/auth', { token: user.token })).status === 401);
      assert.ok(ms < 1000, `run ${run}: replica B still accepted the revoked token after 1 s`);
      assert.equal((await apiA('GET', '/v1/users/auth', { token: user.token })).status, 401);
      worst.push(ms);
    }
    console.log(`revocation reached the other replica in at most ${Math.max(...worst).toFixed(1)} ms`);
  });

  test('revoke-all and a member removed or demoted take effect on every replica within 1 s', async () => {
    const owner = await ownerWithStore(apiA);
    const editor = await memberWithRole(apiA, owner.token, owner.storeId, 'editor');
    const read = (api: Api) => api('GET', `/v1/stores/${owner.storeId}/orders`, { token: editor.token });
    const write = (api: Api) => api('POST', `/v1/stores/${owner.storeId}/orders`, { token: editor.token, body: { customerName: 'Cache' } });
    assert.equal((await write(apiB)).status, 201);

    // Demoted to viewer on A: B refuses writes (403) within 1 s, still allows reads.
    const demote = await apiA('PATCH', `/v1/stores/${owner.storeId}/members/${editor.user.id}`, { token: owner.token, body: { role: 'viewer' } });
    assert.equal(demote.status, 200, demote.text);
    assert.ok((await within(1000, async () => (await write(apiB)).status === 403)) < 1000, 'B still let a demoted member write');
    assert.equal((await read(apiB)).status, 200);

    // Removed on A: B answers 404 within 1 s.
    assert.equal((await apiA('DELETE', `/v1/stores/${owner.storeId}/members/${editor.user.id}`, { token: owner.token })).status, 204);
    assert.ok((await within(1000, async () => (await read(apiB)).status === 404)) < 1000, 'B still let a removed member read');

    // Added back on B: A, which remembered "not a member", lets them in within 1 s.
    assert.equal((await read(apiA)).status, 404);
    const again = await apiB('POST', `/v1/stores/${owner.storeId}/members`, { token: owner.token, body: { email: editor.user.email, role: 'viewer' } });
    assert.equal(again.status, 201, again.text);
    assert.ok((await within(1000, async () => (await read(apiA)).status === 200)) < 1000, 'A did not see the new membership');

    // Every session revoked from B: A refuses the owner's token within 1 s.
    const second = await apiA('POST', '/v1/users/auth/signin', { body: { email: owner.email, password: 'correct horse battery' } });
    const otherToken = second.body?.token ?? owner.token;
    assert.equal((await apiA('GET', '/v1/users/auth', { token: owner.token })).status, 200);
    const all = await apiB('POST', '/v1/users/auth/tokens/revoke-all', { token: otherToken, body: { includeCurrent: true } });
    assert.ok(all.status < 300, all.text);
    assert.ok((await within(1000, async () => (await apiA('GET', '/v1/users/auth', { token: owner.token })).status === 401)) < 1000);
  });

  test('revocations racing with requests on both replicas: after the revoke commits, none is accepted (20 runs in parallel)', async () => {
    await Promise.all(
      Array.from({ length: 20 }, async (_, run) => {
        const user = await signup(run % 2 ? apiA : apiB, `Race ${run}`);
        let revokedAt = Infinity;
        const hammer = async (api: Api) => {
          const accepted: number[] = [];
          // Until 1.3 s after the revocation answered.
          for (let sent = performance.now(); sent < revokedAt + 1300; sent = performance.now()) {
            const res = await api('GET', '/v1/users/auth', { token: user.token });
            if (res.status === 200) accepted.push(sent);
          }
          return accepted;
        };
        const hammering = [hammer(apiA), hammer(apiB)];
        await new Promise((r) => setTimeout(r, 5 + (run % 5) * 3));
        const res = await (run % 2 ? apiB : apiA)('POST', '/v1/users/auth/signout', { token: user.token });
        assert.ok(res.status < 300, res.text);
        revokedAt = performance.now();
        const accepted = (await Promise.all(hammering)).flat();
        // A request sent more than 1 s after the revocation answered must have been refused.
        assert.ok(accepted.every((t) => t < revokedAt + 1000), `run ${run}: a request long after the revocation was accepted`);
        assert.equal((await apiA('GET', '/v1/users/auth', { token: user.token })).status, 401);
        assert.equal((await apiB('GET', '/v1/users/auth', { token: user.token })).status, 401);
      }),
    );
  });
});

describe('cached tokens and memberships on one replica', () => {
  let S: TestService;
  let api: Api;
  before(async () => {
    S = await startTestService();
    api = client(S.url);
  });
  after(async () => S?.close());

  test('the write that revokes or removes answers only once this replica has forgotten (30 runs in parallel)', async () => {
    const owner = await ownerWithStore(api);
    await Promise.all(
      Array.from({ length: 30 }, async (_, run) => {
        const user = await signup(api, `Local ${run}`);
        assert.equal((await api('GET', '/v1/users/auth', { token: user.token })).status, 200);
        const out = await api('POST', '/v1/users/auth/signout', { token: user.token });
        assert.ok(out.status < 300, out.text);
        assert.equal((await api('GET', '/v1/users/auth', { token: user.token })).status, 401, `run ${run}: the signed-out token still worked`);

        const member = await memberWithRole(api, owner.token, owner.storeId, 'viewer');
        assert.equal((await api('GET', `/v1/stores/${owner.storeId}`, { token: member.token })).status, 200);
        assert.equal((await api('DELETE', `/v1/stores/${owner.storeId}/members/${member.user.id}`, { token: owner.token })).status, 204);
        assert.equal((await api('GET', `/v1/stores/${owner.storeId}`, { token: member.token })).status, 404, `run ${run}: a removed member still read the store`);
      }),
    );
  });
});

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from './helpers.js';
import { assertFeeefProblem, feeefClient, feeefSignup, feeefStore } from './feeef-helpers.js';
import { startSmtpCapture, tokenFrom, type CapturedMail } from './smtp.js';

// Feeef's SDK `stores.invites` (feeef.js 0.12.12) against /feeef/v1: list, create, get, revoke, accept.

let svc: TestService;
let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;
let owner: Awaited<ReturnType<typeof feeefStore>>;
before(async () => {
  smtp = await startSmtpCapture();
  svc = await startTestService({ SOUK_SMTP_URL: smtp.url, SOUK_PUBLIC_URL: 'https://souk.example/app' });
  owner = await feeefStore(svc.url);
});
after(async () => {
  await svc.close();
  await smtp.close();
});

let n = 0;
const newEmail = () => `invitee${Date.now()}${n++}@example.com`;

/** `ff.stores.invites.create(storeId, data)` and the mail it sends. */
async function invite(data: Record<string, unknown>, as = owner.ff, storeId = owner.storeId): Promise<{ invite: any; mail: CapturedMail; token: string }> {
  const res = await as.post(`/stores/${storeId}/invites`, data);
  assert.equal(res.status, 201, res.text);
  const mail = await smtp.waitFor(String(data.email), /accept-invite/);
  return { invite: res.data, mail, token: tokenFrom(mail) };
}

/** A new account signed up with the invited address, as `ff.users.signup` does. */
async function signupAs(email: string) {
  const ff = feeefClient(svc.url);
  const res = await ff.post('/users/auth/signup', { name: 'Invitee', email, password: 'correct horse battery' });
  assert.equal(res.status, 201, res.text);
  ff.token = res.data.token.token;
  return { ff, user: res.data.user };
}

test('create mails a link carrying the invite id and token; list and get answer it without the token', async () => {
  const email = newEmail();
  const { invite: inv, mail, token } = await invite({ email: email.toUpperCase(), role: 'confermer', metadata: { note: 'packer' }, scopes: ['orders'] });
  assert.equal(inv.storeId, owner.storeId);
  assert.equal(inv.email, email);
  assert.equal(inv.role, 'editor', 'a confermer is an editor in Souk');
  assert.equal(inv.status, 'pending');
  assert.equal(inv.invitedBy, owner.user.id);
  assert.equal(inv.acceptedAt, null);
  assert.deepEqual(inv.metadata, { note: 'packer' });
  const days = (Date.parse(inv.expiresAt) - Date.parse(inv.createdAt)) / 86_400_000;
  assert.ok(days > 6.99 && days < 7.01, `expires in 7 days, not ${days}`);

  assert.deepEqual(mail.to, [email]);
  assert.match(mail.text, /Feeef Store/);
  const link = /https:\/\/souk\.example\/app\/accept-invite\?\S+/.exec(mail.text);
  assert.ok(link, mail.text);
  const url = new URL(link[0]);
  assert.equal(url.searchParams.get('store'), owner.storeId);
  assert.equal(url.searchParams.get('invite'), inv.id);
  assert.equal(url.searchParams.get('token'), token);
  assert.ok(token.length >= 40);

  const list = await owner.ff.get(`/stores/${owner.storeId}/invites`);
  assert.equal(list.status, 200, list.text);
  assert.ok(list.data.some((i: any) => i.id === inv.id));
  assert.ok(!list.text.includes(token));
  const pending = await owner.ff.get(`/stores/${owner.storeId}/invites`, { status: 'pending' });
  assert.ok(pending.data.every((i: any) => i.status === 'pending'));
  assert.ok(pending.data.some((i: any) => i.id === inv.id));
  assert.ok(!(await owner.ff.get(`/stores/${owner.storeId}/invites`, { status: 'accepted' })).data.some((i: any) => i.id === inv.id));
  assertFeeefProblem(await owner.ff.get(`/stores/${owner.storeId}/invites`, { status: 'lost' }), 400, 'VALIDATION_FAILED');

  const got = await owner.ff.get(`/stores/${owner.storeId}/invites/${inv.id}`);
  assert.equal(got.status, 200, got.text);
  assert.equal(got.data.id, inv.id);
  assert.ok(!got.text.includes(token));
  assertFeeefProblem(await owner.ff.get(`/stores/${owner.storeId}/invites/inv_nope`), 404, 'NOT_FOUND');

  // The same address again while this one is pending: 409 (revoke first).
  assertFeeefProblem(await owner.ff.post(`/stores/${owner.storeId}/invites`, { email, role: 'viewer' }), 409, 'CONFLICT');
});

test('a new account signed up with the invited email accepts: it is a member with the role, once', async () => {
  const email = newEmail();
  const { invite: inv, token } = await invite({ email, role: 'viewer' });
  const invitee = await signupAs(email);
  // Before accepting it is no member.
  assertFeeefProblem(await invitee.ff.get(`/stores/${owner.storeId}`, { by: 'id' }), 404, 'NOT_FOUND');

  // A wrong token, or another store's id, answers as an unknown invite.
  assertFeeefProblem(await invitee.ff.post(`/stores/${owner.storeId}/invites/${inv.id}/accept`, { token: `${token}x` }), 404, 'NOT_FOUND');
  const elsewhere = await invitee.ff.post(`/stores/st_nope/invites/${inv.id}/accept`, { token });
  assertFeeefProblem(elsewhere, 404, 'NOT_FOUND');
  assert.match(elsewhere.data.detail, /invite/);

  const accepted = await invitee.ff.post(`/stores/${owner.storeId}/invites/${inv.id}/accept`, { token });
  assert.equal(accepted.status, 200, accepted.text);
  assert.equal(accepted.data.userId, invitee.user.id);
  assert.equal(accepted.data.email, email);
  assert.equal(accepted.data.role, 'viewer');

  const store = await invitee.ff.get(`/stores/${owner.storeId}`, { by: 'id' });
  assert.equal(store.status, 200, store.text);
  assert.equal(store.data.role, 'viewer');
  const got = await owner.ff.get(`/stores/${owner.storeId}/invites/${inv.id}`);
  assert.equal(got.data.status, 'accepted');
  assert.equal(got.data.acceptedBy, invitee.user.id);
  assert.ok(got.data.acceptedAt);

  // A second accept: 409; revoking an accepted invite: 409 (remove the member instead).
  assertFeeefProblem(await invitee.ff.post(`/stores/${owner.storeId}/invites/${inv.id}/accept`, { token }), 409, 'CONFLICT');
  assertFeeefProblem(await owner.ff.delete(`/stores/${owner.storeId}/invites/${inv.id}`), 409, 'CONFLICT');
  // The new member (a viewer) cannot manage invites.
  assertFeeefProblem(await invitee.ff.get(`/stores/${owner.storeId}/invites`), 403, 'FORBIDDEN');
});

test('another account with the right link is refused (403) and learns nothing of the invite', async () => {
  const email = newEmail();
  const { invite: inv, token } = await invite({ email, role: 'editor' });
  const other = await feeefSignup(svc.url, 'Other');
  const res = await other.ff.post(`/stores/${owner.storeId}/invites/${inv.id}/accept`, { token });
  assertFeeefProblem(res, 403, 'FORBIDDEN');
  assert.ok(!res.text.includes(email));
  assert.ok(!res.text.includes(owner.storeId));
  // Signed out: 401.
  assertFeeefProblem(await feeefClient(svc.url).post(`/stores/${owner.storeId}/invites/${inv.id}/accept`, { token }), 401, 'UNAUTHENTICATED');
  // The invite is still pending, and its addressee can still accept it.
  assert.equal((await owner.ff.get(`/stores/${owner.storeId}/invites/${inv.id}`)).data.status, 'pending');
  const invitee = await signupAs(email);
  assert.equal((await invitee.ff.post(`/stores/${owner.storeId}/invites/${inv.id}/accept`, { token })).status, 200);
});

test('a revoked invite cannot be accepted', async () => {
  const email = newEmail();
  const { invite: inv, token } = await invite({ email, role: 'editor' });
  const revoked = await owner.ff.delete(`/stores/${owner.storeId}/invites/${inv.id}`);
  assert.equal(revoked.status, 204, revoked.text);
  assert.equal((await owner.ff.get(`/stores/${owner.storeId}/invites/${inv.id}`)).data.status, 'revoked');
  const invitee = await signupAs(email);
  const res = await invitee.ff.post(`/stores/${owner.storeId}/invites/${inv.id}/accept`, { token });
  assertFeeefProblem(res, 409, 'CONFLICT');
  assert.match(res.data.detail, /revoked/);
  assertFeeefProblem(await invitee.ff.get(`/stores/${owner.storeId}`, { by: 'id' }), 404, 'NOT_FOUND');
  // Once revoked, the address may be invited again.
  await invite({ email, role: 'viewer' });
});

test('an expired invite cannot be accepted; expiresAt is bounded', async () => {
  const email = newEmail();
  const soon = new Date(Date.now() + 3_600_000).toISOString();
  const { invite: inv, token } = await invite({ email, role: 'editor', expiresAt: soon });
  assert.equal(Date.parse(inv.expiresAt), Date.parse(soon));
  // The hour passes.
  await svc.service.deps.orm.em.fork().getConnection().execute(`update store_invites set expires_at = now() - interval '1 second' where id = ?`, [inv.id]);
  assert.equal((await owner.ff.get(`/stores/${owner.storeId}/invites/${inv.id}`)).data.status, 'expired');
  const invitee = await signupAs(email);
  const res = await invitee.ff.post(`/stores/${owner.storeId}/invites/${inv.id}/accept`, { token });
  assertFeeefProblem(res, 409, 'CONFLICT');
  assert.match(res.data.detail, /expired/);

  for (const expiresAt of [new Date(Date.now() - 60_000).toISOString(), new Date(Date.now() + 31 * 86_400_000).toISOString(), 'tomorrow']) {
    assertFeeefProblem(await owner.ff.post(`/stores/${owner.storeId}/invites`, { email: newEmail(), role: 'viewer', expiresAt }), 400, 'VALIDATION_FAILED');
  }
});

test('only owners and admins invite; only an owner invites an owner; members and outsiders are refused', async () => {
  const editorEmail = newEmail();
  const { token, invite: inv } = await invite({ email: editorEmail, role: 'editor' });
  const editor = await signupAs(editorEmail);
  assert.equal((await editor.ff.post(`/stores/${owner.storeId}/invites/${inv.id}/accept`, { token })).status, 200);

  const target = newEmail();
  assertFeeefProblem(await editor.ff.post(`/stores/${owner.storeId}/invites`, { email: target, role: 'viewer' }), 403, 'FORBIDDEN');
  assertFeeefProblem(await editor.ff.get(`/stores/${owner.storeId}/invites/${inv.id}`), 403, 'FORBIDDEN');
  assertFeeefProblem(await editor.ff.delete(`/stores/${owner.storeId}/invites/${inv.id}`), 403, 'FORBIDDEN');
  const outsider = await feeefSignup(svc.url, 'Outsider');
  assertFeeefProblem(await outsider.ff.post(`/stores/${owner.storeId}/invites`, { email: target, role: 'viewer' }), 404, 'NOT_FOUND');
  assertFeeefProblem(await outsider.ff.get(`/stores/${owner.storeId}/invites`), 404, 'NOT_FOUND');
  assert.ok(!smtp.mails.some((m) => m.to.includes(target)), 'a refused invite sends no mail');

  // An admin invites, but not an owner; an existing member's address is a 409.
  const adminEmail = newEmail();
  const a = await invite({ email: adminEmail, role: 'admin' });
  const admin = await signupAs(adminEmail);
  assert.equal((await admin.ff.post(`/stores/${owner.storeId}/invites/${a.invite.id}/accept`, { token: a.token })).status, 200);
  await invite({ email: newEmail(), role: 'viewer' }, admin.ff);
  assertFeeefProblem(await admin.ff.post(`/stores/${owner.storeId}/invites`, { email: newEmail(), role: 'owner' }), 403, 'FORBIDDEN');
  assertFeeefProblem(await owner.ff.post(`/stores/${owner.storeId}/invites`, { email: editorEmail, role: 'viewer' }), 409, 'CONFLICT');
  assertFeeefProblem(await owner.ff.post(`/stores/${owner.storeId}/invites`, { email: newEmail(), role: 'viewer', nickname: 'x' }), 400, 'VALIDATION_FAILED');
});

test('without SMTP the invite is made and its mail kept in the outbox, not sent', async () => {
  const local = await startTestService();
  try {
    const o = await feeefStore(local.url);
    const email = newEmail();
    const res = await o.ff.post(`/stores/${o.storeId}/invites`, { email, role: 'viewer' });
    assert.equal(res.status, 201, res.text);
    const rows = await local.service.deps.orm.em.fork().getConnection().execute(`select body from mail_outbox where to_address = ?`, [email]);
    assert.equal(rows.length, 1);
    assert.match(rows[0].body, /accept-invite\?.*token=/);
  } finally {
    await local.close();
  }
});

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { client, startTestService, type Api, type TestService } from './helpers.js';
import { startFakeYalidine, type FakeYalidine } from './fakes/yalidine.js';
import { assertFeeefProblem, feeefClient, feeefSignup, feeefStore } from './feeef-helpers.js';

// Feeef's SDK against /feeef/v1: template components, store templates and locales, image prompt
// templates, shipping prices and methods, promo codes, and the Yalidine carrier's per-provider paths.

let svc: TestService;
let api: Api;
let fake: FakeYalidine;
let admin: Awaited<ReturnType<typeof feeefSignup>>;
let owner: Awaited<ReturnType<typeof feeefStore>>;
before(async () => {
  fake = await startFakeYalidine();
  svc = await startTestService({ SOUK_YALIDINE_URL: fake.url });
  api = client(svc.url);
  // The first account is the platform admin, who owns the platform's prompt templates.
  admin = await feeefSignup(svc.url, 'Admin');
  owner = await feeefStore(svc.url);
});
after(async () => {
  await svc.close();
  await fake.close();
});

test('template components: create with ?storeId, marketplace fields accepted, PUT partial, fork, resolve, delete', async () => {
  const { ff, storeId } = owner;
  const created = await ff.post('/template_components', { title: 'Hero', code: '<div/>', propsSchema: { type: 'object' }, price: 0, screenshots: [] }, { storeId });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.data.storeId, storeId);
  assert.equal(created.data.version, 1);
  assert.equal(created.data.price, 0);
  const id = created.data.id;
  const put = await ff.put(`/template_components/${id}`, { subtitle: 'Big', policy: 'public' });
  assert.equal(put.status, 200, put.text);
  assert.equal(put.data.title, 'Hero');
  assert.equal(put.data.subtitle, 'Big');
  assert.equal((await ff.get(`/template_components/${id}`, { by: 'id' })).data.policy, 'public');
  const library = await ff.get('/template_components', { storeId, page: 1, limit: 10 });
  assert.deepEqual(library.data.data.map((c: any) => c.id), [id]);
  assert.equal(library.data.meta.total, 1);
  assertFeeefProblem(await ff.post('/template_components', { title: 'X', code: 'x', parentId: id }, { storeId }), 400, 'VALIDATION_FAILED');

  // Another store forks the public component and resolves both.
  const other = await feeefStore(svc.url);
  assert.equal((await other.ff.get(`/template_components/${id}`)).data.id, id);
  const fork = await other.ff.post(`/template_components/${id}/fork`, { storeId: other.storeId, title: 'My Hero' });
  assert.equal(fork.status, 201, fork.text);
  assert.equal(fork.data.parentId, id);
  assert.equal(fork.data.policy, 'private');
  const resolved = await other.ff.post('/actions/resolveComponents', { storeId: other.storeId, ids: [fork.data.id, id, 'tpc_0000000000000000000000000000'] });
  assert.equal(resolved.status, 200, resolved.text);
  assert.deepEqual(Object.keys(resolved.data.resolved).sort(), [fork.data.id, id].sort());
  assert.deepEqual(resolved.data.missing, ['tpc_0000000000000000000000000000']);
  // The fork is private: the first store cannot read it.
  assertFeeefProblem(await ff.get(`/template_components/${fork.data.id}`), 404, 'NOT_FOUND');
  assertFeeefProblem(await other.ff.delete(`/template_components/${id}`, { by: 'id' }), 404, 'NOT_FOUND');
  assert.equal((await ff.delete(`/template_components/${id}`, { by: 'id' })).status, 204);
});

test('store templates: title ↔ name, theme data refused, locales (list, create, update, replace, delete)', async () => {
  const { ff, storeId } = owner;
  const created = await ff.post('/store_templates', { title: 'Main', schema: {}, data: {}, policy: 'private', tags: [] }, { storeId });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.data.title, 'Main');
  const id = created.data.id;
  assertFeeefProblem(await ff.post('/store_templates', { title: 'Theme', data: { colors: ['red'] } }, { storeId }), 400, 'VALIDATION_FAILED');
  assert.equal((await ff.put(`/store_templates/${id}`, { title: 'Renamed' })).data.title, 'Renamed');
  assert.equal((await ff.get(`/store_templates/${id}`, { by: 'id' })).data.title, 'Renamed');
  const list = await ff.get('/store_templates', { storeId });
  assert.deepEqual(list.data.data.map((t: any) => t.id), [id]);

  const en = await ff.post(`/store_templates/${id}/locales`, { locale: 'en', messages: { hello: 'Hello' }, isDefault: true });
  assert.equal(en.status, 201, en.text);
  assert.equal(en.data.storeTemplateId, id);
  const fr = await ff.put(`/store_templates/${id}/locales/fr`, { messages: { hello: 'Bonjour' } });
  assert.equal(fr.status, 200, fr.text);
  assert.equal(fr.data.locale, 'fr');
  const bundle = await ff.get(`/store_templates/${id}/locales`);
  assert.equal(bundle.data.defaultLocale, 'en');
  assert.deepEqual([...bundle.data.locales].sort(), ['en', 'fr']);
  assert.equal(bundle.data.messages.fr.hello, 'Bonjour');
  assert.equal((await ff.delete(`/store_templates/${id}/locales/fr`)).status, 204);
  const replaced = await ff.put(`/store_templates/${id}/locales`, { locales: [{ locale: 'ar', messages: { hello: 'مرحبا' }, isDefault: true }] });
  assert.equal(replaced.status, 200, replaced.text);
  assert.deepEqual(replaced.data.locales, ['ar']);
  assert.equal((await ff.delete(`/store_templates/${id}`, { by: 'id' })).status, 204);
  assertFeeefProblem(await ff.get('/store_templates/default'), 501, 'NOT_IMPLEMENTED');
  assertFeeefProblem(await ff.post(`/store_templates/${id}/install`, { storeId }), 501, 'NOT_IMPLEMENTED');
});

test("image prompt templates: the platform's (admin) and a store's own; the SDK's serialized bodies", async () => {
  const body = { name: 'Product shot', description: null, prompt: 'A photo of {{product}}', tags: ['photo'], attachments: [], previewImageUrl: null, propsSchema: { type: 'object', properties: { product: { type: 'string' } } }, props: {} };
  const platform = await admin.ff.post('/image_prompt_templates', body);
  assert.equal(platform.status, 201, platform.text);
  assert.deepEqual(platform.data.attachments, []);
  assertFeeefProblem(await owner.ff.post('/image_prompt_templates', body), 403, 'FORBIDDEN');
  const own = await owner.ff.post('/image_prompt_templates', { ...body, name: 'Store shot' }, { storeId: owner.storeId });
  assert.equal(own.status, 201, own.text);
  // Any signed-in user reads the platform's; a store's own is found from its id.
  assert.equal((await owner.ff.get(`/image_prompt_templates/${platform.data.id}`, { by: 'id' })).data.name, 'Product shot');
  const updated = await owner.ff.put(`/image_prompt_templates/${own.data.id}`, { description: 'Studio', setToNull: ['previewImageUrl'] });
  assert.equal(updated.status, 200, updated.text);
  assert.equal(updated.data.description, 'Studio');
  const list = await owner.ff.get('/image_prompt_templates', { storeId: owner.storeId, tags: ['photo'], hasPreview: false, orderBy: 'name' });
  assert.deepEqual(list.data.data.map((t: any) => t.id), [own.data.id]);
  const platformList = await owner.ff.get('/image_prompt_templates', { nameLike: 'product' });
  assert.deepEqual(platformList.data.data.map((t: any) => t.id), [platform.data.id]);
  assertFeeefProblem(await owner.ff.post('/image_prompt_templates', { ...body, attachments: [{ url: 'x' }] }, { storeId: owner.storeId }), 400, 'VALIDATION_FAILED');
  assert.equal((await owner.ff.delete(`/image_prompt_templates/${own.data.id}`, { by: 'id' })).status, 204);
  assertFeeefProblem(await owner.ff.delete(`/image_prompt_templates/${platform.data.id}`, { by: 'id' }), 403, 'FORBIDDEN');
});

test('image prompt templates: a {{var}} propsSchema does not declare is taken as free text (declared a string), on create and update', async () => {
  // imagePromptTemplates.create({name, prompt, propsSchema}): the SDK posts the object as it is.
  const created = await owner.ff.post('/image_prompt_templates', { name: 'Styled', prompt: 'A photo of {{product}} in {{style}}', propsSchema: { type: 'object', properties: { product: { type: 'string' } }, additionalProperties: false } }, { storeId: owner.storeId });
  assert.equal(created.status, 201, created.text);
  assert.deepEqual(created.data.propsSchema.properties, { product: { type: 'string' }, style: { type: 'string' } });
  assert.equal(created.data.propsSchema.additionalProperties, false);
  // Without a propsSchema at all (the platform's, as the SDK sends it without params).
  const bare = await admin.ff.post('/image_prompt_templates', { name: 'Bare', prompt: 'A {{ mood }} logo' });
  assert.equal(bare.status, 201, bare.text);
  assert.deepEqual(bare.data.propsSchema, { properties: { mood: { type: 'string' } } });
  // update({id, data: {prompt}}): the new variable joins the stored schema; a new schema keeps the prompt's.
  const id = created.data.id;
  const reworded = await owner.ff.put(`/image_prompt_templates/${id}`, { prompt: '{{product}} by {{brand}}' });
  assert.equal(reworded.status, 200, reworded.text);
  assert.deepEqual(Object.keys(reworded.data.propsSchema.properties).sort(), ['brand', 'product', 'style']);
  const reschemed = await owner.ff.put(`/image_prompt_templates/${id}`, { propsSchema: { type: 'object', properties: {} } });
  assert.equal(reschemed.status, 200, reschemed.text);
  assert.deepEqual(Object.keys(reschemed.data.propsSchema.properties).sort(), ['brand', 'product']);
  // Souk's own /v1 keeps its rule: every {{var}} declared.
  const v1 = await api('POST', `/v1/ai/image-prompt-templates?storeId=${owner.storeId}`, { token: owner.token, body: { name: 'x', prompt: 'A {{city}}', propsSchema: { type: 'object', properties: {} } } });
  assert.equal(v1.status, 400, JSON.stringify(v1.body));
});

test("store-less SDK calls take the caller's only store; a member of several stores is asked to name one", async () => {
  const solo = await feeefStore(svc.url);
  const { ff, storeId } = solo;
  // promos.create({code, discount, strict}) and promos.list(): no store_id anywhere.
  const promo = await ff.post('/promos', { code: 'SOLO10', discount: [[0, 10]], strict: false });
  assert.equal(promo.status, 201, promo.text);
  const promos = await ff.get('/promos', {});
  assert.equal(promos.status, 200, promos.text);
  assert.deepEqual(promos.data.data.map((p: any) => p.code), ['SOLO10']);
  // productLandingPages.list({storeId}): the SDK forwards only `params`, so the store is dropped.
  const pages = await ff.get('/product_landing_pages', {});
  assert.equal(pages.status, 200, pages.text);
  assert.deepEqual(pages.data.data, []);
  // templateComponents.create({title, code, propsSchema, propsDefault}) and storeTemplates.create({title}).
  const component = await ff.post('/template_components', { title: 'Solo hero', code: '<div/>', propsSchema: { type: 'object' }, propsDefault: {} });
  assert.equal(component.status, 201, component.text);
  assert.equal(component.data.storeId, storeId);
  const template = await ff.post('/store_templates', { title: 'Solo theme' });
  assert.equal(template.status, 201, template.text);
  assert.equal(template.data.storeId, storeId);

  // A second store: the caller must name the one meant.
  assert.equal((await ff.post('/stores', { name: 'Second' })).status, 201);
  const several = [
    await ff.get('/promos', {}),
    await ff.post('/promos', { code: 'TWO10', discount: [[0, 10]], strict: false }),
    await ff.get('/product_landing_pages', {}),
    await ff.post('/template_components', { title: 'Two', code: '<div/>', propsSchema: { type: 'object' }, propsDefault: {} }),
    await ff.post('/store_templates', { title: 'Two' }),
  ];
  for (const res of several) {
    assertFeeefProblem(res, 400, 'VALIDATION_FAILED');
    assert.match(res.data.detail, /several stores/);
    assert.ok(['store_id', 'storeId'].includes(res.data.errors[0].path), res.text);
  }
  assert.equal((await ff.get('/promos', { store_id: storeId })).data.data.length, 1);
  // A user with no store, and no token at all.
  const none = await feeefSignup(svc.url, 'Nobody');
  const empty = await none.ff.get('/promos', {});
  assertFeeefProblem(empty, 400, 'VALIDATION_FAILED');
  assert.match(empty.data.detail, /no store/);
  assertFeeefProblem(await feeefClient(svc.url).get('/promos', {}), 401, 'UNAUTHENTICATED');
});

test('templateComponents.fork({fromId, storeId, title}) of a marketplace component: the copy is the store\'s, whoever owns the source', async () => {
  const author = await feeefStore(svc.url);
  const published = await author.ff.post('/template_components', { title: 'Market hero', code: '<section/>', propsSchema: { type: 'object' }, propsDefault: {}, policy: 'public' });
  assert.equal(published.status, 201, published.text);
  const unlisted = await author.ff.post('/template_components', { title: 'Link only', code: '<div/>', policy: 'unlisted' });
  assert.equal(unlisted.status, 201, unlisted.text);
  // A member of two stores finds it in the marketplace (list without storeId) and forks it into the second.
  const buyer = await feeefStore(svc.url);
  const second = await buyer.ff.post('/stores', { name: 'Second' });
  assert.equal(second.status, 201, second.text);
  const market = await buyer.ff.get('/template_components', {});
  assert.ok(market.data.data.some((c: any) => c.id === published.data.id), market.text);
  for (const [source, into] of [[published.data, second.data.id], [unlisted.data, buyer.storeId]]) {
    const fork = await buyer.ff.post(`/template_components/${source.id}/fork`, { storeId: into, title: `My ${source.title}` });
    assert.equal(fork.status, 201, fork.text);
    assert.equal(fork.data.storeId, into);
    assert.equal(fork.data.parentId, source.id);
    assert.equal(fork.data.policy, 'private');
    assert.equal(fork.data.code, source.code);
    const library = await buyer.ff.get('/template_components', { storeId: into });
    assert.ok(library.data.data.some((c: any) => c.id === fork.data.id), library.text);
  }
  // A private source stays its store's: another store's fork answers as a missing component.
  const kept = await author.ff.post('/template_components', { title: 'Kept', code: '<div/>' });
  assertFeeefProblem(await buyer.ff.post(`/template_components/${kept.data.id}/fork`, { storeId: buyer.storeId, title: 'x' }), 404, 'NOT_FOUND');
});

test('shipping prices and methods: flat CRUD, PUT merges prices, status[] filters', async () => {
  const { ff, storeId } = owner;
  const price = await ff.post('/shipping_prices', { name: 'Standard', storeId, prices: { DZ: { '16': { home: 400, desk: 200, pickup: null } } }, status: 'published' });
  assert.equal(price.status, 201, price.text);
  const merged = await ff.put(`/shipping_prices/${price.data.id}`, { prices: { DZ: { '31': { home: 700, desk: null, pickup: null } } } });
  assert.equal(merged.status, 200, merged.text);
  assert.deepEqual(Object.keys(merged.data.prices.DZ).sort(), ['16', '31']);
  assert.equal((await ff.get(`/shipping_prices/${price.data.id}`, { by: 'id' })).data.name, 'Standard');
  const prices = await ff.get('/shipping_prices', { store_id: storeId, status: ['published'] });
  assert.equal(prices.data.meta.total, 1);

  const method = await ff.post('/shipping_methods', { name: 'Express', storeId, price: 500, rates: null, status: 'published', policy: 'private' });
  assert.equal(method.status, 201, method.text);
  assert.equal(method.data.rates, null);
  const linked = await ff.put(`/shipping_methods/${method.data.id}`, { shippingPriceId: price.data.id });
  assert.equal(linked.data.shippingPriceId, price.data.id);
  assertFeeefProblem(await ff.post('/shipping_methods', { name: 'Old', storeId, rates: [[400, 600]] }), 400, 'VALIDATION_FAILED');
  const methods = await ff.get('/shipping_methods', { store_id: storeId, status: ['published', 'draft'], policy: 'private' });
  assert.deepEqual(methods.data.data.map((m: any) => m.id), [method.data.id]);
  assertFeeefProblem(await ff.delete(`/shipping_prices/${price.data.id}`, { by: 'id' }), 409, 'CONFLICT');
  assert.equal((await ff.delete(`/shipping_methods/${method.data.id}`, { by: 'id' })).status, 204);
  assert.equal((await ff.delete(`/shipping_prices/${price.data.id}`, { by: 'id' })).status, 204);
});

test('promos: snake_case, [[0, percent]] discounts, list with validNow, find, validate (public)', async () => {
  const { ff, storeId } = owner;
  const created = await ff.post('/promos', { code: 'summer', discount: [[0, 15]], strict: false, max: 10, starts_at: null, ends_at: null, store_id: storeId });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.data.code, 'SUMMER');
  assert.deepEqual(created.data.discount, [[0, 15]]);
  assert.equal(created.data.count, 0);
  assert.equal(created.data.max, 10);
  assertFeeefProblem(await ff.post('/promos', { code: 'ladder', discount: [[3, 10], [6, 20]], strict: false, store_id: storeId }), 400, 'VALIDATION_FAILED');
  // Without store_id the caller's only store is taken (see the store-less calls' test).
  const off = await ff.post('/promos', { code: 'old', type: 'fixed', value: 100, active: false, store_id: storeId });
  assert.equal(off.status, 201, off.text);
  const all = await ff.get('/promos', { store_id: storeId, page: 1, limit: 10 });
  assert.equal(all.data.meta.total, 2);
  const valid = await ff.get('/promos', { store_id: storeId, validNow: '1' as unknown as boolean });
  assert.deepEqual(valid.data.data.map((p: any) => p.code), ['SUMMER']);
  assert.equal((await ff.get(`/promos/${created.data.id}`)).data.code, 'SUMMER');
  const anonymous = feeefClient(svc.url);
  const ok = await anonymous.post('/promos/validate', { code: 'summer', storeId });
  assert.equal(ok.status, 200, ok.text);
  assert.equal(ok.data.valid, true);
  const no = await anonymous.post('/promos/validate', { code: 'old', storeId });
  assert.deepEqual({ valid: no.data.valid, reason: no.data.reason }, { valid: false, reason: 'invalid' });
});

test("yalidine at Feeef's per-provider paths: the fee table, statistics; another carrier's path says the store's carrier is yalidine", async () => {
  const { ff, storeId, token } = owner;
  assertFeeefProblem(await ff.get(`/stores/${storeId}/integrations/yalidine/fees`, { id: 'x', token: 'y' }), 503, 'NOT_CONFIGURED');
  const put = await api('PUT', `/v1/stores/${storeId}/integrations/carrier`, { token, body: { provider: 'yalidine', config: { apiId: 'yal-test-id', fromWilaya: 16 }, secrets: { apiToken: 'yal-test-token-0123456789abcdef' } } });
  assert.equal(put.status, 201, put.text);
  const fees = await ff.get(`/stores/${storeId}/integrations/yalidine/fees`, { id: 'ignored', token: 'ignored' });
  assert.equal(fees.status, 200, fees.text);
  assert.equal(fees.data.length, 58);
  assert.deepEqual(fees.data[15], [200, 400]);
  assert.deepEqual(fees.data[49], [null, null]);
  assert.ok(fake.calls.every((c) => !c.query.toString().includes('ignored')));
  // Ship an order the Feeef way; its tracking then shows the parcel's events.
  const p = (await ff.post('/products', { storeId, name: 'Tea', price: 1250, stock: 5 })).data;
  const order = await ff.post('/orders', { storeId, customerName: 'Amina Benali', customerPhone: '0555123456', shippingType: 'home', shippingState: '16', shippingCity: 'Bordj El Kiffan', shippingAddress: 'Cité 5 Juillet', items: [{ productId: p.id, quantity: 1 }] });
  assert.equal(order.status, 201, order.text);
  const sent = await ff.post(`/stores/${storeId}/integrations/yalidine/send`, { orderId: order.data.id, id: 'ignored', token: 'ignored' });
  assert.equal(sent.status, 201, sent.text);
  assert.equal(sent.data.orderId, order.data.id);
  assert.equal(fake.parcelsOf(order.data.id).length, 1);
  const tracked = await ff.get(`/orders/${order.data.id}/track`);
  assert.ok(tracked.data.history.length >= 1, tracked.text);
  assert.equal((await ff.get(`/orders/${order.data.id}`)).data.deliveryStatus, 'delivering');
  const stats = await ff.get(`/stores/${storeId}/integrations/yalidine/statistics`);
  assert.equal(stats.status, 200, stats.text);
  assert.equal(stats.data.codCollected, 0);
  for (const path of ['ecotrack/fees', 'zimou/fees']) assertFeeefProblem(await ff.get(`/stores/${storeId}/integrations/${path}`), 503, 'NOT_CONFIGURED');
  assertFeeefProblem(await ff.post(`/stores/${storeId}/integrations/noest/send`, { guid: 'g', token: 't', orderId: order.data.id }), 503, 'NOT_CONFIGURED');
  assertFeeefProblem(await ff.get(`/stores/${storeId}/integrations/ecotrack/finance`), 501, 'NOT_IMPLEMENTED');
  const viewer = await feeefSignup(svc.url);
  assertFeeefProblem(await viewer.ff.get(`/stores/${storeId}/integrations/yalidine/fees`), 404, 'NOT_FOUND');
});

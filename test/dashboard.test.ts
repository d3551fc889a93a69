import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { client, ownerWithStore, startTestService, type Api, type TestService } from './helpers.js';
import { startReceiver, type Receiver } from './receiver.js';

const CHROMIUM = process.env.SOUK_CHROMIUM ?? '/usr/bin/chromium';
type Doc = { document: { querySelectorAll(s: string): { length: number }; documentElement: { scrollWidth: number }; body: { innerHTML: string } } };

/** What is drawn (a box, not `visibility: hidden`) and reaches past the viewport's left or right side. */
function offScreen(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const w = globalThis as any;
    const out: string[] = [];
    for (const el of w.document.querySelectorAll('body *')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || w.getComputedStyle(el).visibility === 'hidden') continue;
      if (r.left < 0 || r.right > w.innerWidth + 0.5) out.push(`${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className ? `.${el.className}` : ''} ${Math.round(r.left)}..${Math.round(r.right)}`);
    }
    return out;
  });
}

const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (.ci/run installs Debian's chromium package; set SOUK_CHROMIUM to another binary)`;

describe('the developer console', { skip }, () => {
  let svc: TestService;
  let api: Api;
  let rx: Receiver;
  let browser: Browser;
  before(async () => {
    svc = await startTestService({ SOUK_WEBHOOK_ALLOW_LOOPBACK: '1' });
    api = client(svc.url);
    rx = await startReceiver();
    // The receiver's certificate is trusted by Node (NODE_EXTRA_CA_CERTS), not by the browser: the page never calls it.
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  });
  after(async () => {
    await browser?.close();
    await rx?.close();
    await svc?.close();
  });

  test('sign in, create a webhook (secret shown once), send a test, watch a delivery arrive live', { timeout: 120_000 }, async () => {
    const owner = await ownerWithStore(api);
    const page = await browser.newPage();
    const res = await page.goto(`${svc.url}/dashboard`);
    assert.equal(res?.status(), 200);
    assert.match(String(res?.headers()['content-security-policy']), /script-src 'self'/);

    await page.fill('#signin-email', owner.email);
    await page.fill('#signin-password', 'wrong password');
    await page.click('#signin-form button[type=submit]');
    await page.waitForSelector('#signin-error:not(:empty)');

    await page.fill('#signin-password', 'correct horse battery');
    await page.click('#signin-form button[type=submit]');
    await page.waitForSelector('#store-view:not([hidden])');
    // The store list arrives after the view opens: wait for it to choose the store.
    await page.waitForFunction((id) => (globalThis as any).document.getElementById('store-select').value === id, owner.storeId, { timeout: 30_000 });
    assert.equal(await page.inputValue('#store-select'), owner.storeId);
    // On screen, not only in the DOM: signed in, the sign-in and sign-up forms are gone.
    assert.equal(await page.isVisible('#signin-view'), false, 'the sign-in forms stay on screen after sign-in');
    assert.equal(await page.isVisible('#signin-form'), false);
    assert.equal(await page.isVisible('#store-panels'), true);
    await page.waitForSelector('#live.on');

    await page.fill('#webhook-name', 'Local receiver');
    await page.fill('#webhook-url', rx.url);
    await page.click('#webhook-save');
    await page.waitForSelector('#secret-box:not([hidden])');
    const secret = await page.textContent('#secret-value');
    assert.match(String(secret), /^whsec_[0-9a-f]{48}$/);
    await page.waitForSelector('#webhooks tbody tr');
    const listed = await api('GET', `/v1/stores/${owner.storeId}/integrations/webhooks`, { token: owner.token });
    assert.equal(listed.body.data.length, 1);
    assert.equal(listed.body.data[0].url, rx.url);

    await page.click('#send-test');
    await page.waitForSelector('#history tbody tr td.status-success');
    assert.match(String(await page.textContent('#history tbody tr')), /orderCreated \(test\)/);
    assert.equal(rx.received.length, 1);

    // A real event: the history row appears through the SSE stream, no reload; the live list names the order.
    const order = await api('POST', `/v1/stores/${owner.storeId}/orders`, { token: owner.token, body: { customerName: 'Ada' } });
    await page.waitForSelector(`#events li:has-text("orderCreated ${order.body.id}")`, { timeout: 20_000 });
    const product = await api('POST', `/v1/stores/${owner.storeId}/products`, { token: owner.token, body: { name: 'Live lamp', price: 10 } });
    await page.waitForSelector(`#events li:has-text("productCreated ${product.body.id}")`, { timeout: 20_000 });
    // Function form: the page's CSP forbids evaluating strings.
    await page.waitForFunction(() => (globalThis as unknown as Doc).document.querySelectorAll('#history tbody tr').length >= 3, undefined, { timeout: 20_000 });
    assert.match(String(await page.textContent('#history tbody')), /orderCreated(?! \(test\))/);

    // Edit, then delete.
    await page.click('#webhooks tbody tr button:has-text("Edit")');
    await page.fill('#webhook-name', 'Renamed');
    await page.click('#webhook-save');
    await page.waitForSelector('#webhooks tbody tr td:has-text("Renamed")');
    page.once('dialog', (d) => void d.accept());
    await page.click('#webhooks tbody tr button:has-text("Delete")');
    await page.waitForFunction(() => (globalThis as unknown as Doc).document.querySelectorAll('#webhooks tbody tr').length === 0);
    const after = await api('GET', `/v1/stores/${owner.storeId}/integrations/webhooks`, { token: owner.token });
    assert.equal(after.body.data.length, 0);
    await page.close();
  });

  test('the page text of a webhook name is never markup', async () => {
    const owner = await ownerWithStore(api);
    await api('POST', `/v1/stores/${owner.storeId}/integrations/webhooks`, { token: owner.token, body: { name: '<img src=x onerror=window.pwned=1>', url: rx.url } });
    const page = await browser.newPage();
    await page.goto(`${svc.url}/dashboard`);
    await page.fill('#signin-email', owner.email);
    await page.fill('#signin-password', 'correct horse battery');
    await page.click('#signin-form button[type=submit]');
    await page.waitForSelector('#webhooks tbody tr');
    assert.equal(await page.evaluate(() => (globalThis as { pwned?: number }).pwned), undefined);
    assert.match(String(await page.textContent('#webhooks tbody')), /<img src=x/);
    await page.close();
  });

  test('sign up, create a store, list and revoke API tokens, test a webhook from its row and redeliver', { timeout: 120_000 }, async () => {
    const page = await browser.newPage();
    await page.goto(`${svc.url}/dashboard`);
    assert.equal(await page.getAttribute('a[href="/graphql"]', 'href'), '/graphql');
    assert.equal(await page.getAttribute('a[href="/v1/docs"]', 'href'), '/v1/docs');
    const email = `console${Date.now()}@example.com`;
    await page.fill('#signup-name', 'Console');
    await page.fill('#signup-email', email);
    await page.fill('#signup-password', 'correct horse battery');
    await page.click('#signup-form button[type=submit]');
    await page.waitForSelector('#no-store:not([hidden])');
    // No store yet: the webhook and delivery panels are not on screen, the store form is.
    assert.equal(await page.isVisible('#store-panels'), false, 'the webhook panels show without a store');
    assert.equal(await page.isVisible('#webhook-form'), false);
    assert.equal(await page.isVisible('#signup-form'), false);
    assert.equal(await page.isVisible('#store-form'), true);
    await page.fill('#store-name', 'Console Store');
    await page.click('#store-form button[type=submit]');
    await page.waitForSelector('#live.on');
    const token = await page.evaluate(() => (globalThis as unknown as { sessionStorage: { getItem(k: string): string } }).sessionStorage.getItem('souk.token'));
    const stores = await api('GET', '/v1/stores', { token });
    assert.equal(stores.body.data[0].name, 'Console Store');
    assert.equal(await page.inputValue('#store-select'), stores.body.data[0].id);

    // A second session appears in the token list and can be revoked there.
    const other = await api('POST', '/v1/users/auth/signin', { body: { email, password: 'correct horse battery' } });
    await page.reload();
    await page.waitForFunction(() => (globalThis as unknown as Doc).document.querySelectorAll('#tokens tbody tr').length === 2);
    page.once('dialog', (d) => void d.accept());
    await page.click('#tokens tbody tr:not(:has-text("this session")) button:has-text("Revoke")');
    await page.waitForFunction(() => (globalThis as unknown as Doc).document.querySelectorAll('#tokens tbody tr').length === 1);
    assert.equal((await api('GET', '/v1/users/auth', { token: other.body.token, contract: false })).status, 401);

    await page.fill('#webhook-name', 'Row test');
    await page.fill('#webhook-url', rx.url);
    await page.click('#webhook-save');
    await page.waitForSelector('#webhooks tbody tr');
    await page.click('#webhooks tbody tr button:has-text("Test")');
    await page.waitForSelector('#history tbody tr td.status-success');
    // A real event reaches the live list and the history; its row redelivers.
    await api('POST', `/v1/stores/${stores.body.data[0].id}/orders`, { token, body: { customerName: 'Ada' } });
    await page.waitForSelector('#events li:has-text("orderCreated")', { timeout: 20_000 });
    await page.waitForSelector('#history tbody tr button:has-text("Redeliver")', { timeout: 20_000 });
    const before = rx.received.length;
    await page.click('#history tbody tr button:has-text("Redeliver")');
    await page.waitForFunction((n) => (globalThis as unknown as Doc).document.querySelectorAll('#history tbody tr').length >= n, 3, { timeout: 20_000 });
    assert.ok(rx.received.length > before);
    await page.close();
  });

  test('sign-out clears every view, closes the stream and forgets the store', { timeout: 120_000 }, async () => {
    const owner = await ownerWithStore(api);
    await api('POST', `/v1/stores/${owner.storeId}/integrations/webhooks`, { token: owner.token, body: { name: 'Old hook', url: rx.url } });
    const storeless = await (await import('./helpers.js')).signup(api, 'Storeless');
    const page = await browser.newPage();
    await page.goto(`${svc.url}/dashboard`);
    await page.fill('#signin-email', owner.email);
    await page.fill('#signin-password', 'correct horse battery');
    await page.click('#signin-form button[type=submit]');
    await page.waitForSelector('#live.on');
    await page.click('#webhooks tbody tr button:has-text("History")');
    await page.click('#webhooks tbody tr button:has-text("Edit")');
    await page.click('#webhooks tbody tr button:has-text("Test")');
    await page.waitForSelector('#history tbody tr');
    await page.click('#signout');
    await page.waitForSelector('#signin-view:not([hidden])');
    assert.equal(await page.isVisible('#signin-form'), true);
    assert.equal(await page.isVisible('#store-view'), false);
    assert.equal(await page.isVisible('#who'), false);
    const leftovers = await page.evaluate(() => {
      const d = (globalThis as unknown as Doc).document;
      return {
        html: d.body.innerHTML,
        rows: ['#webhooks tbody tr', '#history tbody tr', '#tokens tbody tr', '#events li', '#store-select option'].map((q) => d.querySelectorAll(q).length),
      };
    });
    assert.deepEqual(leftovers.rows, [0, 0, 0, 0, 0]);
    assert.ok(!leftovers.html.includes(owner.storeId), 'the old store id is still in the page');
    assert.ok(!leftovers.html.includes('Old hook'), 'the old webhook is still on screen');
    assert.equal(await page.inputValue('#webhook-name'), '');
    assert.equal(await page.textContent('#live'), 'offline');

    await page.fill('#signin-email', storeless.email);
    await page.fill('#signin-password', 'correct horse battery');
    await page.click('#signin-form button[type=submit]');
    await page.waitForSelector('#no-store:not([hidden])');
    assert.equal(await page.isVisible('#store-panels'), false);
    // The old stream would have flipped the badge back on; give it the time it would take.
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(await page.textContent('#live'), 'offline');
    assert.equal(await page.evaluate(() => (globalThis as unknown as Doc).document.querySelectorAll('#webhooks tbody tr, #history tbody tr').length), 0);
    assert.ok(!(await page.content()).includes(owner.storeId));
    await page.close();
  });

  test('usable at 390 px: with webhooks, deliveries, tokens and live events, nothing on screen is wider than the screen', { timeout: 120_000 }, async () => {
    const owner = await ownerWithStore(api);
    for (const name of ['A webhook with a long name', 'Another webhook with an even longer name']) {
      await api('POST', `/v1/stores/${owner.storeId}/integrations/webhooks`, { token: owner.token, body: { name, url: `${rx.url}/a/very/long/path/that/would/overflow/a/phone/screen` } });
    }
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(`${svc.url}/dashboard`);
    assert.deepEqual(await offScreen(page), []);
    await page.fill('#signin-email', owner.email);
    await page.fill('#signin-password', 'correct horse battery');
    await page.click('#signin-form button[type=submit]');
    await page.waitForSelector('#live.on');
    await page.click('#webhooks tbody tr button:has-text("Test")');
    await page.waitForSelector('#history tbody tr td.status-success');
    const order = await api('POST', `/v1/stores/${owner.storeId}/orders`, { token: owner.token, body: { customerName: 'Ada' } });
    await page.waitForSelector(`#events li:has-text("${order.body.id}")`, { timeout: 20_000 });
    await page.waitForFunction(() => (globalThis as unknown as Doc).document.querySelectorAll('#tokens tbody tr').length === 2);
    assert.equal(await page.isVisible('#signin-view'), false);
    // Every row's actions are on screen: nothing hides to the right of a scrolling box.
    assert.equal(await page.isVisible('#webhooks tbody tr button:has-text("Delete")'), true);
    assert.deepEqual(await offScreen(page), []);
    const width = await page.evaluate(() => (globalThis as unknown as Doc).document.documentElement.scrollWidth);
    assert.ok(width <= 390, `the page is ${width} px wide`);
    await page.close();
  });
});

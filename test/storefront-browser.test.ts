import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { client, signup, startTestService, type Api, type TestService } from './helpers.js';
import { geoStates } from '../src/domains/geo/geo.data.js';

const geoInstalled = (() => {
  try {
    return geoStates('DZ') !== null;
  } catch {
    return false;
  }
})();

const CHROMIUM = process.env.SOUK_CHROMIUM ?? '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (.ci/run installs Debian's chromium package; set SOUK_CHROMIUM to another binary)`;

describe('examples/storefront.html in a browser', { skip }, () => {
  let svc: TestService;
  let api: Api;
  let browser: Browser;
  let pages: Server;
  let pageOrigin: string;
  before(async () => {
    svc = await startTestService();
    api = client(svc.url);
    // The page is served from another origin, as a shop's own site would be: every call it makes is cross-origin.
    const html = readFileSync('examples/storefront.html');
    pages = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html));
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
    pageOrigin = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  });
  after(async () => {
    await browser?.close();
    await new Promise((resolve) => pages?.close(resolve));
    await svc?.close();
  });

  test('browse, add to cart, check out cash on delivery, see the status change live, from a shop on another origin', { timeout: 120_000 }, async () => {
    const owner = await signup(api, 'Owner');
    const store = await api('POST', '/v1/stores', { token: owner.token, body: { name: 'Dar Browser' } });
    assert.equal(store.status, 201, store.text);
    const storeId = store.body.id;
    // Only the page's origin may call this store from a browser.
    const set = await api('PATCH', `/v1/stores/${storeId}`, { token: owner.token, body: { storefront: { allowedOrigins: [pageOrigin] } } });
    assert.equal(set.status, 200, set.text);
    const made = await api('POST', `/v1/stores/${storeId}/products`, { token: owner.token, body: { name: 'Tapis berbère', price: 4500, stock: 3 } });
    assert.equal(made.status, 201, made.text);
    const method = await api('POST', `/v1/shipping_methods?storeId=${storeId}`, { token: owner.token, body: { name: 'Flat', status: 'published', price: 500 } });
    assert.equal(method.status, 201, method.text);

    const page = await browser.newPage();
    // Every answer the page got is 2xx, but for the geo lists where this server has no dataset
    // (503, and the page falls back to typed codes); no script error, no blocked request.
    const failed: string[] = [];
    page.on('response', (r) => {
      if (r.status() < 400) return;
      if (r.status() === 503 && !geoInstalled && r.url().includes('/v1/geo/')) return;
      failed.push(`${r.status()} ${r.url()}`);
    });
    page.on('requestfailed', (r) => failed.push(`failed ${r.url()}`));
    page.on('console', (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && failed.push(m.text()));
    await page.goto(`${pageOrigin}/?api=${encodeURIComponent(svc.url)}&store=${set.body.slug}`);
    await page.waitForSelector('#products .product button');
    assert.equal(await page.textContent('#store-name'), 'Dar Browser');
    assert.match(String(await page.textContent('#products .product')), /Tapis berbère/);

    await page.click('#products .product button');
    await page.waitForSelector('#cart-section:not([hidden])');
    await page.waitForFunction(() => (globalThis as any).document.getElementById('total').textContent === '5000 DZD');
    assert.equal(await page.textContent('#problems'), '');

    await page.fill('#name', 'Amina');
    await page.fill('#phone', '0555 12 34 56');
    await page.fill('#address', '1 rue Didouche');
    // Without the geo dataset on the server the page asks for the city as text.
    if (await page.$('input#city')) await page.fill('#city', 'Alger Centre');
    await page.click('#place-order');
    await page.waitForSelector('#order-section:not([hidden])');
    const orderId = String(await page.textContent('#order-id'));
    assert.equal(await page.textContent('#order-total'), '5000');
    const placed = await api('GET', `/v1/stores/${storeId}/orders/${orderId}`, { token: owner.token });
    assert.equal(placed.status, 200, placed.text);
    assert.equal(placed.body.customerPhone, '+213555123456');
    assert.equal(placed.body.source, 'storefront');

    // The merchant confirms; the shopper's page shows it over its live subscription, with no reload.
    await page.waitForSelector('#live:not([hidden])');
    const confirmed = await api('PATCH', `/v1/stores/${storeId}/orders/${orderId}`, { token: owner.token, body: { status: 'confirmed' } });
    assert.equal(confirmed.status, 200, confirmed.text);
    await page.waitForFunction(() => (globalThis as any).document.getElementById('order-status').dataset.kind === 'confirmed');
    assert.equal(await page.isVisible('#cancel-order'), false, 'a confirmed order cannot be cancelled by its customer');
    assert.deepEqual(failed, []);

    // A store that lists other origins only: the browser itself refuses the page its answers (CORS).
    const closed = await api('POST', '/v1/stores', { token: owner.token, body: { name: 'Elsewhere' } });
    await api('PATCH', `/v1/stores/${closed.body.id}`, { token: owner.token, body: { storefront: { allowedOrigins: ['https://shop.example'] } } });
    const blocked = await page.evaluate(async (url) => {
      try {
        await fetch(url);
        return 'read';
      } catch {
        return 'blocked';
      }
    }, `${svc.url}/v1/storefront/${closed.body.id}`);
    assert.equal(blocked, 'blocked');
  });
});

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { client, ownerWithStore, startTestService, type Api, type TestService } from './helpers.js';
import { startReceiver, type Receiver } from './receiver.js';

const CHROMIUM = process.env.SOUK_CHROMIUM ?? '/usr/bin/chromium';
type Doc = { document: { querySelectorAll(s: string): { length: number } } };

const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (.ci/run installs Debian's chromium package; set SOUK_CHROMIUM to another binary)`;

describe('the webhook dashboard', { skip }, () => {
  let svc: TestService;
  let api: Api;
  let rx: Receiver;
  let browser: Browser;
  before(async () => {
    svc = await startTestService({ SOUK_WEBHOOK_ALLOW_PRIVATE: '1' });
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
    assert.equal(await page.inputValue('#store-select'), owner.storeId);
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

    // A real event: the history row appears through the SSE stream, no reload.
    await api('POST', `/v1/stores/${owner.storeId}/orders`, { token: owner.token, body: { customerName: 'Ada' } });
    // Function form: the page's CSP forbids evaluating strings.
    await page.waitForFunction(() => (globalThis as unknown as Doc).document.querySelectorAll('#history tbody tr').length >= 2, undefined, { timeout: 20_000 });
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
});

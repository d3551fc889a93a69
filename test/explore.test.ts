import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { client, ownerWithStore, signup, startTestService, type Api, type TestService } from './helpers.js';
import { startSmtpCapture, tokenFrom } from './smtp.js';

const CHROMIUM = process.env.SOUK_CHROMIUM ?? '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (.ci/run installs Debian's chromium package; set SOUK_CHROMIUM to another binary)`;
type Doc = { document: { querySelector(s: string): { textContent: string | null } | null; querySelectorAll(s: string): { length: number } } };

let svc: TestService;
let api: Api;
let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;
before(async () => {
  smtp = await startSmtpCapture();
  svc = await startTestService({ SOUK_SMTP_URL: smtp.url });
  api = client(svc.url);
});
after(async () => {
  await svc?.close();
  await smtp?.close();
});

describe('GET / for programs', () => {
  test('answers where things are as JSON, and the page for browsers', async () => {
    const res = await fetch(`${svc.url}/`, { headers: { accept: 'application/json' } });
    assert.equal(res.status, 200);
    const body = (await res.json()) as Record<string, string>;
    for (const key of ['graphql', 'graphqlStream', 'openapi', 'reference', 'dashboard']) assert.match(body[key], /^http:\/\//, key);
    assert.match(body.reference, /\/v1\/docs$/);
    const html = await fetch(`${svc.url}/`, { headers: { accept: 'text/html,application/xhtml+xml' } });
    assert.match(html.headers.get('content-type') ?? '', /text\/html/);
    assert.match(await html.text(), /href="\/graphql"/);
    // A program's GET /graphql still reaches GraphQL, and the pages are not REST operations.
    const gql = await fetch(`${svc.url}/graphql?query=${encodeURIComponent('{ __typename }')}`, { headers: { 'apollo-require-preflight': '1' } });
    assert.deepEqual(await gql.json(), { data: { __typename: 'Query' } });
    const doc = (await api('GET', '/v1/openapi.json')).body;
    assert.equal(doc.paths['/v1/docs'], undefined);
  });
});

describe('the explorer pages in Chromium, with every network but loopback refused', { skip }, () => {
  let browser: Browser;
  let context: BrowserContext;
  const outside: string[] = [];
  before(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
    context = await browser.newContext();
    await context.route('**/*', (route) => {
      const host = new URL(route.request().url()).hostname;
      if (host === '127.0.0.1' || host === 'localhost' || host === '[::1]') return route.continue();
      outside.push(route.request().url());
      return route.abort('internetdisconnected');
    });
  });
  after(async () => {
    await browser?.close();
  });

  test('GraphiQL runs a query with the token field, and a subscription over /graphql/stream', { timeout: 120_000 }, async () => {
    const owner = await ownerWithStore(api);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const res = await page.goto(`${svc.url}/graphql`);
    assert.equal(res?.status(), 200);
    assert.match(String(res?.headers()['content-security-policy']), /script-src 'self'/);
    await page.waitForSelector('.graphiql-container');
    await page.fill('#token', owner.token);
    await page.click('.graphiql-execute-button');
    await page.waitForFunction(() => /"email"/.test((globalThis as unknown as Doc).document.querySelector('.result-window')?.textContent ?? ''), undefined, { timeout: 30_000 });
    const result = String(await page.textContent('.result-window'));
    assert.ok(result.includes(owner.email), result);
    assert.ok(result.includes(owner.storeId), result);

    // A subscription streams: events arrive in the result pane as the store changes.
    await page.evaluate((storeId) => {
      const cm = (globalThis as any).document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror;
      cm.setValue(`subscription Live { storeEvents(storeId: "${storeId}") { event storeId } }`);
    }, owner.storeId);
    // As after typing: GraphiQL reads the operation from the editor a moment later.
    await new Promise((r) => setTimeout(r, 500));
    await page.click('.graphiql-execute-button');
    // The stream is open once the server counts it; then a write shows up live.
    await new Promise((r) => setTimeout(r, 1500));
    await api('POST', `/v1/stores/${owner.storeId}/orders`, { token: owner.token, body: { customerName: 'Live' } });
    await page.waitForFunction(() => /orderCreated/.test((globalThis as unknown as Doc).document.querySelector('.result-window')?.textContent ?? ''), undefined, { timeout: 30_000 });
    assert.deepEqual(errors, []);
    assert.deepEqual(outside, []);
    await page.close();
  });

  test('the REST reference shows the OpenAPI document', { timeout: 60_000 }, async () => {
    const page = await context.newPage();
    const res = await page.goto(`${svc.url}/v1/docs`);
    assert.equal(res?.status(), 200);
    // Swagger UI renders what is on screen: the first group and its operations.
    await page.waitForSelector('.swagger-ui .opblock-tag');
    await page.waitForSelector('.swagger-ui .opblock');
    const text = String(await page.textContent('.swagger-ui'));
    assert.match(text, /Souk REST API/);
    assert.match(text, /Accounts and sessions/);
    assert.match(text, /\/v1\/users\/auth\/signup/);
    assert.deepEqual(outside, []);
    await page.close();
  });

  test('the links in the account mails open pages that complete the action', { timeout: 60_000 }, async () => {
    const user = await signup(api, 'Mail');
    const verify = tokenFrom(await smtp.waitFor(user.email, /verify-email/));
    const page = await context.newPage();
    await page.goto(`${svc.url}/verify-email?token=${encodeURIComponent(verify)}`);
    await page.waitForSelector('#outcome.ok');
    assert.match(String(await page.textContent('#outcome')), /confirmed/);
    // What is on screen, not only in the DOM: the password form stays out of the verification page.
    assert.equal(await page.isVisible('#reset-form'), false, 'the password form shows on the verification page');
    assert.equal((await api('GET', '/v1/users/auth', { token: user.token })).body.emailVerified, true);
    // The same link again: it worked once, and says so.
    await page.goto(`${svc.url}/verify-email?token=${encodeURIComponent(verify)}`);
    await page.waitForSelector('#outcome.bad');

    await api('POST', '/v1/users/auth/reset-password', { body: { email: user.email } });
    const reset = tokenFrom(await smtp.waitFor(user.email, /reset-password/));
    await page.goto(`${svc.url}/reset-password?token=${encodeURIComponent(reset)}`);
    await page.waitForSelector('#reset-form:not([hidden])');
    assert.equal(await page.isVisible('#reset-form'), true);
    await page.fill('#password', 'a brand new password');
    await page.fill('#password2', 'a brand new password');
    await page.click('#reset-form button[type=submit]');
    await page.waitForFunction(() => /password is changed/.test((globalThis as unknown as Doc).document.querySelector('#outcome')?.textContent ?? ''));
    assert.equal(await page.isVisible('#reset-form'), false, 'the password form stays on screen after the change');
    const signin = await api('POST', '/v1/users/auth/signin', { body: { email: user.email, password: 'a brand new password' } });
    assert.equal(signin.status, 200);
    await page.goto(`${svc.url}/reset-password?token=nope`);
    await page.waitForSelector('#outcome.bad');
    assert.equal(await page.isVisible('#reset-form'), false);
    assert.deepEqual(outside, []);
    await page.close();
  });
});

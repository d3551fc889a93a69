import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startTestService, type TestService } from './helpers.js';
import { feeefStore } from './feeef-helpers.js';

// The face over plain HTTP: JSON read whatever label it comes with, and the entry points that list it.

let svc: TestService;
let owner: Awaited<ReturnType<typeof feeefStore>>;
before(async () => {
  svc = await startTestService();
  owner = await feeefStore(svc.url);
});
after(() => svc.close());

/** A raw request: node's client sends exactly the headers given (no Content-Type unless named). */
function raw(method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(`${svc.url}${path}`, { method, headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, body: /json/.test(String(res.headers['content-type'])) ? JSON.parse(text) : text });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('JSON is read as JSON without a content type, labelled as a form (curl -d), or as text/plain; real forms still parse', async () => {
  const json = JSON.stringify({ storeId: owner.storeId, name: 'Mug', price: 5 });
  const auth = { authorization: `Bearer ${owner.token}` };
  for (const type of [undefined, 'application/x-www-form-urlencoded', 'text/plain;charset=UTF-8', 'application/json']) {
    const res = await raw('POST', '/feeef/v1/products', type ? { ...auth, 'content-type': type } : auth, json);
    assert.equal(res.status, 201, `${type}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.name, 'Mug');
  }
  const form = await raw('POST', '/feeef/v1/products', { ...auth, 'content-type': 'application/x-www-form-urlencoded' }, new URLSearchParams({ storeId: owner.storeId, name: 'Cup' }).toString());
  // Its fields are read (the store and name are found; what is missing is the price).
  assert.equal(form.status, 400);
  assert.deepEqual(form.body.errors.map((e: any) => e.path), ['price']);
  // Bytes that are not JSON stay refused as before.
  const bytes = await raw('POST', '/feeef/v1/products', { ...auth, 'content-type': 'application/octet-stream' }, json);
  assert.equal(bytes.status, 400);
});

test("GET / lists the face at the caller's own origin; every listed link answers; /feeef/v1/docs is the face's reference", async () => {
  const host = `localhost:${new URL(svc.url).port}`;
  const index = await raw('GET', '/', { accept: 'application/json', host });
  assert.equal(index.status, 200);
  assert.equal(index.body.feeef, `http://${host}/feeef/v1`);
  assert.equal(index.body.feeefReference, `http://${host}/feeef/v1/docs`);
  for (const [name, url] of Object.entries(index.body as Record<string, string>)) {
    if (name === 'name' || name === 'graphqlStream' || name === 'graphql') continue;
    assert.ok(url.startsWith(`http://${host}/`), `${name}: ${url}`);
    const res = await raw('GET', new URL(url).pathname, { accept: 'application/json', host });
    assert.equal(res.status, 200, `${name} ${url} answers ${res.status}`);
  }
  const rest = await raw('GET', '/feeef/v1', { host });
  assert.equal(rest.body.openapi, `http://${host}/feeef/v1/openapi.json`);
  const html = await raw('GET', '/', { accept: 'text/html', host });
  assert.ok(html.body.includes('/feeef/v1/docs'));
  assert.ok(html.body.includes(`http://${host}/v1/users/auth/signup`));
  assert.ok(!html.body.includes('localhost:4000') || host === 'localhost:4000');
  const docs = await raw('GET', '/feeef/v1/docs', { accept: 'text/html' });
  assert.equal(docs.status, 200);
  assert.match(docs.body, /data-openapi="\/feeef\/v1\/openapi.json"/);
  assert.match(docs.body, /swagger-ui-bundle\.js/);
  // A Host that is not a host name does not reach the links.
  const odd = await raw('GET', '/', { accept: 'application/json', host: 'evil"><script>' });
  assert.ok(!JSON.stringify(odd.body).includes('<script>'));
});

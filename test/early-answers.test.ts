import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Module } from '../src/core/module.js';
import { MODULES } from '../src/service.js';
import { startTestService, type TestService } from './helpers.js';

/**
 * `Module.early`: answers the server gives before routing. One that answers is written with a
 * request id; one that declines or fails leaves the request to the router, and the server stays up.
 */
let asked = 0;
const probe: Module = {
  name: 'early-probe',
  early: () => (req) => {
    asked++;
    if (req.url === '/v1/early-probe') return { status: 204, headers: { 'x-probe': 'early' }, route: '/v1/early-probe' };
    if (req.url === '/v1/early-throws') throw new Error('the probe fails on purpose');
    return null;
  },
};

let svc: TestService;
before(async () => {
  svc = await startTestService({}, undefined, [...MODULES, probe]);
});
after(() => svc.close());

describe('answers before routing (Module.early)', () => {
  test('a GET it answers is written with a request id; other methods and paths go to the router', async () => {
    const res = await fetch(`${svc.url}/v1/early-probe`);
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('x-probe'), 'early');
    assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    const before = asked;
    const post = await fetch(`${svc.url}/v1/early-probe`, { method: 'POST' });
    assert.equal(asked, before, 'only GETs are asked');
    assert.equal(post.status, 404);
    assert.equal(post.headers.get('x-probe'), null);
    assert.equal((await fetch(`${svc.url}/healthz`)).status, 200);
  });

  test('one that throws leaves the request to the router, and the server keeps serving', async () => {
    const res = await fetch(`${svc.url}/v1/early-throws`);
    assert.equal(res.status, 404);
    assert.equal(res.headers.get('content-type'), 'application/problem+json; charset=utf-8');
    assert.equal((await fetch(`${svc.url}/v1/early-probe`)).status, 204);
  });
});

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertProblem, client, memberWithRole, ownerWithStore, startTestService, type Api, type TestService } from './helpers.js';
import { gql } from './catalog-helpers.js';

let svc: TestService;
let api: Api;
let owner: Awaited<ReturnType<typeof ownerWithStore>>;

before(async () => {
  svc = await startTestService();
  api = client(svc.url);
  owner = await ownerWithStore(api);
});
after(() => svc.close());

const base = '/v1/pages';
const q = () => `?storeId=${owner.storeId}`;

async function create(body: Record<string, unknown>) {
  const res = await api('POST', `${base}${q()}`, { token: owner.token, body: { title: 'About us', ...body } });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

const view = (slug: string, headers: Record<string, string> = {}, storeId = owner.storeId) =>
  fetch(`${svc.url}${base}/view/${encodeURIComponent(slug)}?storeId=${storeId}`, { headers, redirect: 'manual' });

describe('pages', () => {
  test('create, read by id or slug, list, PATCH, PUT, DELETE', async () => {
    const p = await create({ body: '# Hello', seo: { title: 'About', description: 'Who we are' } });
    assert.match(p.id, /^pg_[0-9a-f]+$/);
    assert.equal(p.slug, 'about-us');
    assert.equal(p.status, 'draft');
    assert.equal(p.publishedAt, null);
    assert.deepEqual(p.seo, { title: 'About', description: 'Who we are' });
    assert.deepEqual((await api('GET', `${base}/${p.id}${q()}`, { token: owner.token })).body, p);
    assert.deepEqual((await api('GET', `${base}/about-us${q()}`, { token: owner.token })).body, p);
    assertProblem(await api('GET', `${base}/pg_0123abc${q()}`, { token: owner.token }), 404, 'NOT_FOUND');
    const second = await create({});
    assert.equal(second.slug, 'about-us-2');
    const list = await api('GET', `${base}${q()}&status=draft`, { token: owner.token });
    assert.deepEqual(list.body.data.slice(0, 2).map((x: any) => x.id), [second.id, p.id]);
    const patched = await api('PATCH', `${base}/${p.id}${q()}`, { token: owner.token, body: { status: 'published', seo: { description: 'Updated' } } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.status, 'published');
    assert.ok(patched.body.publishedAt);
    assert.deepEqual(patched.body.seo, { title: 'About', description: 'Updated' });
    const put = await api('PUT', `${base}/${p.id}${q()}`, { token: owner.token, body: { title: 'About', body: 'new' } });
    assert.equal(put.status, 200);
    assert.equal(put.body.slug, 'about-us', 'PUT without a slug keeps it');
    assert.equal(put.body.status, 'draft');
    assert.equal(put.body.publishedAt, null);
    assert.deepEqual(put.body.seo, { title: null, description: null });
    assert.equal((await api('DELETE', `${base}/${p.id}${q()}`, { token: owner.token })).status, 204);
    assertProblem(await api('GET', `${base}/about-us${q()}`, { token: owner.token }), 404, 'NOT_FOUND');
    assertProblem(await api('PATCH', `${base}/${p.id}${q()}`, { token: owner.token, body: { title: 'x' } }), 404, 'NOT_FOUND');
  });

  test('slugs: no "_", "view" reserved, unique per store', async () => {
    const underscore = await api('POST', `${base}${q()}`, { token: owner.token, body: { title: 'x', slug: 'my_page' } });
    assertProblem(underscore, 400, 'VALIDATION_FAILED');
    assert.equal(underscore.body.errors[0].path, 'slug');
    const reserved = await api('POST', `${base}${q()}`, { token: owner.token, body: { title: 'x', slug: 'view' } });
    assertProblem(reserved, 400, 'VALIDATION_FAILED');
    assert.equal(reserved.body.errors[0].path, 'slug');
    const derived = await create({ title: 'View' });
    assert.equal(derived.slug, 'view-2');
    await create({ title: 'x', slug: 'faq' });
    assertProblem(await api('POST', `${base}${q()}`, { token: owner.token, body: { title: 'y', slug: 'faq' } }), 409, 'CONFLICT');
    const other = await create({ title: 'z' });
    assertProblem(await api('PATCH', `${base}/${other.id}${q()}`, { token: owner.token, body: { slug: 'faq' } }), 409, 'CONFLICT');
    assertProblem(await api('PATCH', `${base}/${other.id}${q()}`, { token: owner.token, body: { slug: 'view' } }), 400, 'VALIDATION_FAILED');
    assertProblem(await api('POST', `${base}${q()}`, { token: owner.token, body: { title: 'x', status: 'live' } }), 400, 'VALIDATION_FAILED');
    const elsewhere = await ownerWithStore(api);
    assert.equal((await api('POST', `${base}?storeId=${elsewhere.storeId}`, { token: elsewhere.token, body: { title: 'x', slug: 'faq' } })).status, 201);
  });
});

describe('the public view', () => {
  test('published pages only, rendered to HTML, for anyone', async () => {
    const p = await create({ title: 'Shipping', slug: 'shipping-info', body: '# Delivery\n\nWe ship **everywhere**.\n\n| a | b |\n|---|---|\n| 1 | 2 |', status: 'published', seo: { title: 'Ship' } });
    const res = await view('shipping-info');
    assert.equal(res.status, 200);
    const body = (await res.json()) as any;
    assert.deepEqual(Object.keys(body).sort(), ['html', 'seo', 'title', 'updatedAt']);
    assert.equal(body.title, 'Shipping');
    assert.match(body.html, /<h1>Delivery<\/h1>/);
    assert.match(body.html, /<strong>everywhere<\/strong>/);
    assert.match(body.html, /<table>/);
    assert.deepEqual(body.seo, { title: 'Ship', description: null });
    assert.equal(body.updatedAt, p.updatedAt);
    await create({ title: 'Secret', slug: 'secret', body: 'draft text' });
    assert.equal((await view('secret')).status, 404);
    assert.equal((await view('nothing-here')).status, 404);
    assert.equal((await view('shipping-info', {}, 'st_unknown')).status, 404);
    // Unpublished again: gone from the view.
    await api('PATCH', `${base}/${p.id}${q()}`, { token: owner.token, body: { status: 'draft' } });
    const gone = await view('shipping-info');
    assert.equal(gone.status, 404);
    assert.match(gone.headers.get('content-type') ?? '', /problem\+json/);
    const missingStore = await fetch(`${svc.url}${base}/view/shipping-info`);
    assert.equal(missingStore.status, 400);
  });

  test('no script, event handler, javascript: URL or SVG gets through', async () => {
    const vectors = [
      '<script>alert(1)</script>',
      '<img src="https://cdn.example/x.png" onerror="alert(1)">',
      '<img src=x onerror=alert(1)//>',
      '[click](javascript:alert(1))',
      '[click](JaVaScRiPt:alert(1))',
      '<a href="javascript:alert(1)">x</a>',
      '<a href="&#106;avascript:alert(1)">x</a>',
      '<a href=" javascript:alert(1)">x</a>',
      '<svg onload="alert(1)"><script>alert(1)</script></svg>',
      '<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>',
      '<iframe src="javascript:alert(1)"></iframe>',
      '<div style="background:url(javascript:alert(1))" onclick="alert(1)">y</div>',
      '<object data="data:text/html,<script>alert(1)</script>"></object>',
      '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">d</a>',
      '<form action="javascript:alert(1)"><button>go</button></form>',
      '<details open ontoggle=alert(1)>',
      '<body onload=alert(1)>',
      '![x](javascript:alert(1))',
      '<IMG SRC=JaVaScRiPt:alert(1)>',
      // Unclosed: swallows what follows, so it comes last.
      '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
    ];
    const p = await create({ title: 'XSS', slug: 'xss', status: 'published', body: '[safe](https://example.com) and <a href="mailto:a@b.co">mail</a>\n\n' + vectors.join('\n\n') });
    const body = (await (await view('xss')).json()) as any;
    const html: string = body.html;
    assert.doesNotMatch(html, /<script/i);
    assert.doesNotMatch(html, /<svg/i);
    assert.doesNotMatch(html, /<iframe|<object|<form|<style|<math|<body/i);
    assert.doesNotMatch(html, /\son[a-z]+\s*=/i, html);
    assert.doesNotMatch(html, /javascript:/i);
    assert.doesNotMatch(html, /href="data:/i);
    assert.doesNotMatch(html, /style=/i);
    assert.match(html, /<a href="https:\/\/example\.com" rel="nofollow noopener noreferrer">safe<\/a>/);
    assert.match(html, /href="mailto:a@b.co"/);
    assert.equal(p.body.includes('<script>'), true, 'the Markdown source is kept as written');
  });

  test('ETag and 304; a new version gets a new tag', async () => {
    const p = await create({ title: 'Cached', slug: 'cached', status: 'published', body: 'one' });
    const first = await view('cached');
    const etag = first.headers.get('etag');
    assert.match(etag ?? '', /^"[^"]+"$/);
    const again = await view('cached', { 'if-none-match': etag! });
    assert.equal(again.status, 304);
    assert.equal(await again.text(), '');
    assert.equal(again.headers.get('etag'), etag);
    assert.equal((await view('cached', { 'if-none-match': '"other"' })).status, 200);
    await api('PATCH', `${base}/${p.id}${q()}`, { token: owner.token, body: { body: 'two' } });
    const changed = await view('cached', { 'if-none-match': etag! });
    assert.equal(changed.status, 200);
    assert.notEqual(changed.headers.get('etag'), etag);
  });

  test('a renamed page: its old slugs answer 301 to the new one', async () => {
    const p = await create({ title: 'Returns', slug: 'returns', status: 'published', body: 'Policy' });
    await api('PATCH', `${base}/${p.id}${q()}`, { token: owner.token, body: { slug: 'refunds' } });
    const moved = await view('returns');
    assert.equal(moved.status, 301);
    assert.equal(moved.headers.get('location'), `/v1/pages/view/refunds?storeId=${owner.storeId}`);
    assert.equal((await view('refunds')).status, 200);
    await api('PUT', `${base}/${p.id}${q()}`, { token: owner.token, body: { title: 'Returns', slug: 'money-back', status: 'published', body: 'Policy' } });
    for (const old of ['returns', 'refunds']) {
      const r = await view(old);
      assert.equal(r.status, 301);
      assert.equal(r.headers.get('location'), `/v1/pages/view/money-back?storeId=${owner.storeId}`);
    }
    // Followed by a client, the redirect lands on the page.
    const followed = await fetch(`${svc.url}${base}/view/returns?storeId=${owner.storeId}`);
    assert.equal(followed.status, 200);
    assert.equal(((await followed.json()) as any).title, 'Returns');
    // A live page takes an old slug back; a draft's old slugs lead nowhere.
    const taker = await create({ title: 'New returns', slug: 'returns', status: 'published' });
    assert.equal(((await (await view('returns')).json()) as any).title, 'New returns');
    await api('PATCH', `${base}/${p.id}${q()}`, { token: owner.token, body: { status: 'draft' } });
    assert.equal((await view('refunds')).status, 404);
    assert.ok(taker.id);
    // The authenticated read by slug finds only the current slug.
    assertProblem(await api('GET', `${base}/refunds${q()}`, { token: owner.token }), 404, 'NOT_FOUND');
  });

  test('who may do what; GraphQL twin', async () => {
    const viewer = await memberWithRole(api, owner.token, owner.storeId, 'viewer');
    const editor = await memberWithRole(api, owner.token, owner.storeId, 'editor');
    assert.equal((await api('GET', `${base}${q()}`, { token: viewer.token })).status, 200);
    assertProblem(await api('POST', `${base}${q()}`, { token: viewer.token, body: { title: 'x' } }), 403, 'FORBIDDEN');
    assert.equal((await api('POST', `${base}${q()}`, { token: editor.token, body: { title: 'By editor' } })).status, 201);
    assertProblem(await api('GET', `${base}${q()}`), 401, 'UNAUTHENTICATED');
    const stranger = await ownerWithStore(api);
    assertProblem(await api('GET', `${base}${q()}`, { token: stranger.token }), 404, 'NOT_FOUND');
    await create({ title: 'GQL', slug: 'gql', status: 'published', body: '*hi*' });
    const r = await gql(svc.url, undefined, 'query($s: ID!) { pageView(storeId: $s, slug: "gql") { title html moved slug } }', { s: owner.storeId });
    assert.deepEqual(r.data.pageView, { title: 'GQL', html: '<p><em>hi</em></p>\n', moved: false, slug: 'gql' });
  });
});

describe('render once, serve many', () => {
  const sql = (text: string, params: unknown[] = []) => svc.service.deps.orm.em.fork().getConnection().execute(text, params);

  test('the red-team bodies are refused at write, or rendered within budget; none can be stored to fail later', async () => {
    const bodies = { quotes: '>'.repeat(3_000), emphasis: '*a'.repeat(49_000), 'emphasis at the size limit': '*a'.repeat(131_072) };
    const answers = await Promise.all(
      Object.entries(bodies).map(async ([name, body]) => [name, await api('POST', `${base}${q()}`, { token: owner.token, body: { title: name, status: 'published', body } })] as const),
    );
    for (const [name, res] of answers) {
      if (res.status === 201) {
        assert.equal((await view(res.body.slug)).status, 200, name);
        continue;
      }
      assertProblem(res, 400, 'VALIDATION_FAILED');
      assert.equal(res.body.errors[0].path, 'body', name);
    }
    assert.match(answers[0][1].body.errors?.[0]?.message ?? '', /more than 64 levels/, 'nesting is refused before rendering');
    // A refused PATCH leaves the page as it was.
    const p = await create({ title: 'Kept', status: 'published', body: 'kept' });
    assertProblem(await api('PATCH', `${base}/${p.id}${q()}`, { token: owner.token, body: { body: '>'.repeat(3_000) } }), 400, 'VALIDATION_FAILED');
    const kept = await view(p.slug);
    assert.equal(((await kept.json()) as { html: string }).html, '<p>kept</p>\n');
  });

  test('views serve the HTML stored with the version; the ETag is the version, so a 304 needs no body', async () => {
    const p = await create({ title: 'Stored', slug: 'stored', status: 'published', body: 'original' });
    const [row] = await sql('select html, version from pages where id = ?', [p.id]);
    assert.deepEqual(row, { html: '<p>original</p>\n', version: 1 });
    // What a view serves is the stored HTML, not a fresh render of the body.
    await sql('update pages set html = ? where id = ?', ['<p>from the row</p>', p.id]);
    const first = await view('stored');
    assert.equal(((await first.json()) as { html: string }).html, '<p>from the row</p>');
    assert.equal(first.headers.get('etag'), `"${p.id}.1"`);
    assert.equal((await view('stored', { 'if-none-match': `"${p.id}.1"` })).status, 304);
    await api('PATCH', `${base}/${p.id}${q()}`, { token: owner.token, body: { title: 'Stored again' } });
    const second = await view('stored', { 'if-none-match': `"${p.id}.1"` });
    assert.equal(second.status, 200);
    assert.equal(second.headers.get('etag'), `"${p.id}.2"`);
    assert.equal(((await second.json()) as { html: string }).html, '<p>from the row</p>', 'a write that leaves the body keeps its HTML');
  });

  test('views racing writes: every answer is one version of the page (its title, HTML and ETag together), however the HTML is cached', async () => {
    const p = await create({ title: 'Race 0', slug: 'race', status: 'published', body: 'body 0' });
    const seen: string[] = [];
    for (let i = 1; i <= 12; i++) {
      const views = Array.from({ length: 8 }, () => view('race'));
      const write = api('PATCH', `${base}/${p.id}${q()}`, { token: owner.token, body: { title: `Race ${i}`, body: `body ${i}` } });
      for (const res of await Promise.all(views)) {
        assert.equal(res.status, 200);
        const { title, html } = (await res.json()) as { title: string; html: string };
        const n = Number(title.slice('Race '.length));
        assert.equal(html, `<p>body ${n}</p>\n`, `title ${title} came with ${html}`);
        assert.equal(res.headers.get('etag'), `"${p.id}.${n + 1}"`);
        seen.push(title);
      }
      assert.equal((await write).status, 200);
    }
    assert.ok(new Set(seen).size > 1, 'the views saw the writes');
  });

  test('a page stored before HTML was: its first view renders and stores it, once, and GraphQL renders nothing not asked for', async () => {
    const p = await create({ title: 'Legacy', slug: 'legacy', status: 'published', body: '**old**' });
    await sql('update pages set html = null where id = ?', [p.id]);
    const titleOnly = await gql(svc.url, undefined, 'query($s: ID!) { pageView(storeId: $s, slug: "legacy") { title etag } }', { s: owner.storeId });
    assert.deepEqual(titleOnly.data.pageView, { title: 'Legacy', etag: `"${p.id}.1"` });
    assert.equal((await sql('select html from pages where id = ?', [p.id]))[0].html, null, 'html was not selected, so nothing was rendered');
    const views = await Promise.all(Array.from({ length: 10 }, () => view('legacy')));
    const bodies = await Promise.all(views.map((v) => v.json() as Promise<{ html: string }>));
    assert.deepEqual(new Set(views.map((v) => v.status)), new Set([200]));
    assert.deepEqual(new Set(bodies.map((b) => b.html)), new Set(['<p><strong>old</strong></p>\n']));
    assert.equal((await sql('select html from pages where id = ?', [p.id]))[0].html, '<p><strong>old</strong></p>\n');
  });

  test('a stored body that cannot be rendered within budget is served as text, never as an error', async () => {
    const p = await create({ title: 'Broken', slug: 'broken', status: 'published', body: 'fine' });
    await sql('update pages set body = ?, html = null where id = ?', [`${'>'.repeat(3_000)} <b>`, p.id]);
    const res = await view('broken');
    assert.equal(res.status, 200);
    const { html } = (await res.json()) as { html: string };
    assert.ok(html.startsWith('<pre>&#62;&#62;&#62;') && html.endsWith(' &#60;b&#62;</pre>'), html.slice(0, 40));
    assert.equal((await view('broken')).status, 200);
  });
});

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { assertProblem, client, freshDatabase, memberWithRole, ownerWithStore, signup, startTestService, type Api, type TestService } from './helpers.js';
import { startFakeOpenAiImages, type FakeOpenAiImages } from './fakes/openai-images.js';
import { gqlSubscribe, openSse, STORE_EVENTS } from './sse-client.js';
import { signedAssetPath } from '../src/domains/ai/asset-urls.js';
import { drawImage } from '../src/providers/local-images/draw.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

const studios = (storeId: string, rest = '') => `/v1/ai/brand-studios${rest}?storeId=${storeId}`;
const templates = (rest = '', storeId?: string) => `/v1/ai/image-prompt-templates${rest}${storeId ? `?storeId=${storeId}` : ''}`;

async function generations(api: Api, token: string, storeId: string, studioId: string, query = ''): Promise<any[]> {
  const res = await api('GET', `/v1/ai/brand-studios/${studioId}/generations?storeId=${storeId}${query}`, { token });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

/** Waits until every generation of the studio is settled (completed or failed). */
async function settled(api: Api, token: string, storeId: string, studioId: string, ms = 30_000): Promise<any[]> {
  return until(
    'generations to settle',
    async () => {
      const list = await generations(api, token, storeId, studioId);
      return list.length && list.every((g) => g.status === 'completed' || g.status === 'failed') ? list : undefined;
    },
    ms,
  );
}

function decodePng(bytes: Buffer) {
  return PNG.sync.read(bytes);
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function fetchBytes(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('local provider (offline, deterministic)', () => {
  test('same prompt and seed give the same bytes; another prompt or seed gives another image; valid PNGs of the size', () => {
    const a = drawImage('A logo for "Souk"', 7, 512, 512);
    assert.ok(a.equals(drawImage('A logo for "Souk"', 7, 512, 512)));
    assert.ok(!a.equals(drawImage('A logo for "Zouk"', 7, 512, 512)));
    assert.ok(!a.equals(drawImage('A logo for "Souk"', 8, 512, 512)));
    const png = decodePng(drawImage('cover', 1, 1536, 512));
    assert.deepEqual([png.width, png.height], [1536, 512]);
  });
});

describe('service with the local provider', () => {
  let svc: TestService;
  let api: Api;
  let admin: { token: string; user: any };

  before(async () => {
    svc = await startTestService({ SOUK_SSE_HEARTBEAT_MS: '500' });
    api = client(svc.url);
    // The first account of an empty database is the platform admin.
    admin = await signup(api, 'Admin');
  });
  after(() => svc.close());

  describe('image prompt templates', () => {
    const schema = { type: 'object', properties: { product: { type: 'string', minLength: 1 }, mood: { type: 'string', enum: ['calm', 'bold'] } }, required: ['product'] };

    test('platform templates: admins write, any signed-in user reads, others are refused', async () => {
      const created = await api('POST', templates(), {
        token: admin.token,
        body: { name: 'Studio shot', description: 'A product on a plain table', prompt: 'A {{ mood }} photo of {{product}} on a table', tags: ['photo', 'photo', 'studio'], propsSchema: schema, props: { product: 'a teapot', mood: 'calm' } },
      });
      assert.equal(created.status, 201, created.text);
      const t = created.body;
      assert.match(t.id, /^ipt_[0-9a-f]+$/);
      assert.equal(t.storeId, null);
      assert.deepEqual(t.tags, ['photo', 'studio']);
      assert.deepEqual(t.props, { product: 'a teapot', mood: 'calm' });
      assert.equal(t.previewImageUrl, null);

      const user = await signup(api);
      const list = await api('GET', templates(), { token: user.token });
      assert.equal(list.status, 200);
      assert.ok(list.body.data.some((x: any) => x.id === t.id));
      assert.ok('nextCursor' in list.body);
      assert.equal((await api('GET', templates(`/${t.id}`), { token: user.token })).body.name, 'Studio shot');
      assertProblem(await api('GET', templates()), 401, 'UNAUTHENTICATED');
      assertProblem(await api('POST', templates(), { token: user.token, body: { name: 'x', prompt: 'y' } }), 403, 'FORBIDDEN');
      assertProblem(await api('PATCH', templates(`/${t.id}`), { token: user.token, body: { name: 'x' } }), 403, 'FORBIDDEN');
      assertProblem(await api('DELETE', templates(`/${t.id}`), { token: user.token }), 403, 'FORBIDDEN');

      const patched = await api('PATCH', templates(`/${t.id}`), { token: admin.token, body: { description: null, previewImageUrl: 'https://cdn.example.com/p.png' } });
      assert.equal(patched.status, 200, patched.text);
      assert.equal(patched.body.description, null);
      assert.equal(patched.body.previewImageUrl, 'https://cdn.example.com/p.png');
      assert.equal((await api('GET', templates(`?tag=studio`), { token: user.token })).body.data.some((x: any) => x.id === t.id), true);
      assert.equal((await api('GET', templates(`?q=STUDIO%20sh`), { token: user.token })).body.data.some((x: any) => x.id === t.id), true);
      assert.equal((await api('GET', templates(`?tag=nope`), { token: user.token })).body.data.length, 0);
      assert.equal((await api('DELETE', templates(`/${t.id}`), { token: admin.token })).status, 204);
      assertProblem(await api('GET', templates(`/${t.id}`), { token: user.token }), 404, 'NOT_FOUND');
    });

    test('every {{var}} must be declared in propsSchema (400), on create and on every update', async () => {
      const undeclared = await api('POST', templates(), { token: admin.token, body: { name: 'x', prompt: 'A {{product}} in {{city}}', propsSchema: schema, props: { product: 'tea' } } });
      assertProblem(undeclared, 400, 'VALIDATION_FAILED');
      assert.equal(undeclared.body.errors[0].path, 'prompt');
      assert.match(undeclared.body.detail, /\{\{city\}\}/);
      assertProblem(await api('POST', templates(), { token: admin.token, body: { name: 'x', prompt: 'A {{product}}' } }), 400, 'VALIDATION_FAILED');
      assertProblem(await api('POST', templates(), { token: admin.token, body: { name: 'x', prompt: 'A {{two words}}', propsSchema: schema, props: { product: 'a' } } }), 400, 'VALIDATION_FAILED');
      const ok = await api('POST', templates(), { token: admin.token, body: { name: 'x', prompt: 'A {{product}}', propsSchema: schema, props: { product: 'tea' } } });
      assert.equal(ok.status, 201, ok.text);
      const prompt = await api('PATCH', templates(`/${ok.body.id}`), { token: admin.token, body: { prompt: 'A {{product}} for {{audience}}' } });
      assertProblem(prompt, 400, 'VALIDATION_FAILED');
      assert.equal(prompt.body.errors[0].path, 'prompt');
      // Dropping a used property from the schema breaks the prompt too.
      assertProblem(await api('PATCH', templates(`/${ok.body.id}`), { token: admin.token, body: { propsSchema: { type: 'object', properties: { mood: { type: 'string' } } }, props: {} } }), 400, 'VALIDATION_FAILED');
      assert.equal((await api('GET', templates(`/${ok.body.id}`), { token: admin.token })).body.prompt, 'A {{product}}');
    });

    test('propsSchema must compile and props validate against it (Ajv), with the path', async () => {
      const bad = await api('POST', templates(), { token: admin.token, body: { name: 'x', prompt: 'p', propsSchema: { type: 'object', properties: { a: { type: 'nonsense' } } } } });
      assertProblem(bad, 400, 'VALIDATION_FAILED');
      assert.equal(bad.body.errors[0].path, 'propsSchema');
      const props = await api('POST', templates(), { token: admin.token, body: { name: 'x', prompt: '{{product}} {{mood}}', propsSchema: schema, props: { product: 'tea', mood: 'loud' } } });
      assertProblem(props, 400, 'VALIDATION_FAILED');
      assert.equal(props.body.errors[0].path, 'props.mood');
      // A required property needs no default: each generation must give it (see the template test below).
      const noDefault = await api('POST', templates(), { token: admin.token, body: { name: 'x', prompt: '{{product}}', propsSchema: schema } });
      assert.equal(noDefault.status, 201, noDefault.text);
      assert.deepEqual(noDefault.body.props, {});
      assertProblem(await api('POST', templates(), { token: admin.token, body: { name: 'x', prompt: 'p', unknownField: 1 } }), 400, 'VALIDATION_FAILED');
    });

    test("a store's own templates: ?storeId= selects them; editors write, members read, others get 404", async () => {
      const s = await ownerWithStore(api);
      const viewer = await memberWithRole(api, s.token, s.storeId, 'viewer');
      const editor = await memberWithRole(api, s.token, s.storeId, 'editor');
      const stranger = await signup(api);
      const created = await api('POST', templates('', s.storeId), { token: editor.token, body: { name: 'Ours', prompt: 'Our {{product}}', propsSchema: schema, props: { product: 'tea' } } });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.storeId, s.storeId);
      assertProblem(await api('POST', templates('', s.storeId), { token: viewer.token, body: { name: 'x', prompt: 'y' } }), 403, 'FORBIDDEN');
      assertProblem(await api('POST', templates('', s.storeId), { token: stranger.token, body: { name: 'x', prompt: 'y' } }), 404, 'NOT_FOUND');
      assert.deepEqual((await api('GET', templates('', s.storeId), { token: viewer.token })).body.data.map((t: any) => t.id), [created.body.id]);
      assertProblem(await api('GET', templates('', s.storeId), { token: stranger.token }), 404, 'NOT_FOUND');
      // The platform list and the platform id space do not hold it.
      assert.ok(!(await api('GET', templates(), { token: viewer.token })).body.data.some((t: any) => t.id === created.body.id));
      assertProblem(await api('GET', templates(`/${created.body.id}`), { token: viewer.token }), 404, 'NOT_FOUND');
      assert.equal((await api('GET', `/v1/ai/image-prompt-templates/${created.body.id}?storeId=${s.storeId}`, { token: viewer.token })).status, 200);
      // Platform admins do not write a store's templates unless they are its members.
      assertProblem(await api('PATCH', `/v1/ai/image-prompt-templates/${created.body.id}?storeId=${s.storeId}`, { token: admin.token, body: { name: 'x' } }), 404, 'NOT_FOUND');
      assert.equal((await api('DELETE', `/v1/ai/image-prompt-templates/${created.body.id}?storeId=${s.storeId}`, { token: editor.token })).status, 204);
    });
  });

  describe('brand studios', () => {
    test('CRUD, the brief, status, permissions and ?storeId=', async () => {
      const s = await ownerWithStore(api);
      const viewer = await memberWithRole(api, s.token, s.storeId, 'viewer');
      const stranger = await signup(api);
      const created = await api('POST', studios(s.storeId), {
        token: s.token,
        body: { name: 'Atlas Tea', brief: { tone: 'warm', keywords: ['mint', 'mint', 'desert'], colors: ['#2A9D8F', '#e9c46a'] } },
      });
      assert.equal(created.status, 201, created.text);
      const st = created.body;
      assert.match(st.id, /^bst_[0-9a-f]+$/);
      assert.equal(st.storeId, s.storeId);
      assert.deepEqual(st.brief, { brandName: 'Atlas Tea', tone: 'warm', keywords: ['mint', 'desert'], colors: ['#2a9d8f', '#e9c46a'] });
      assert.deepEqual(st.primaries, { logo: null, icon: null, cover: null, palette: null });
      assert.equal(st.status, 'draft');

      assertProblem(await api('POST', '/v1/ai/brand-studios', { token: s.token, body: { name: 'x' } }), 400, 'VALIDATION_FAILED');
      const noStore = await api('GET', '/v1/ai/brand-studios', { token: s.token });
      assert.equal(noStore.body.errors[0].path, 'storeId');
      assertProblem(await api('POST', studios(s.storeId), { token: viewer.token, body: { name: 'x' } }), 403, 'FORBIDDEN');
      assertProblem(await api('GET', studios(s.storeId), { token: stranger.token }), 404, 'NOT_FOUND');
      assertProblem(await api('GET', studios(s.storeId, `/${st.id}`), { token: stranger.token }), 404, 'NOT_FOUND');
      assertProblem(await api('POST', studios(s.storeId), { token: s.token, body: { name: 'x', brief: { colors: ['red'] } } }), 400, 'VALIDATION_FAILED');
      assertProblem(await api('POST', studios(s.storeId), { token: s.token, body: { name: 'x', status: 'done' } }), 400, 'VALIDATION_FAILED');

      const patched = await api('PATCH', `/v1/ai/brand-studios/${st.id}?storeId=${s.storeId}`, { token: s.token, body: { status: 'ready', brief: { tone: null, keywords: ['sun'] } } });
      assert.equal(patched.status, 200, patched.text);
      assert.equal(patched.body.status, 'ready');
      assert.deepEqual(patched.body.brief, { brandName: 'Atlas Tea', tone: null, keywords: ['sun'], colors: ['#2a9d8f', '#e9c46a'] });
      assert.equal((await api('GET', studios(s.storeId, `/${st.id}`), { token: viewer.token })).body.status, 'ready');

      const second = await api('POST', studios(s.storeId), { token: s.token, body: { name: 'Second' } });
      const page1 = await api('GET', `/v1/ai/brand-studios?storeId=${s.storeId}&limit=1`, { token: viewer.token });
      assert.deepEqual(page1.body.data.map((x: any) => x.id), [second.body.id]);
      const page2 = await api('GET', `/v1/ai/brand-studios?storeId=${s.storeId}&limit=1&cursor=${page1.body.nextCursor}`, { token: viewer.token });
      assert.deepEqual(page2.body.data.map((x: any) => x.id), [st.id]);
      assert.equal(page2.body.nextCursor, null);

      assertProblem(await api('DELETE', studios(s.storeId, `/${st.id}`), { token: viewer.token }), 403, 'FORBIDDEN');
      assert.equal((await api('DELETE', studios(s.storeId, `/${st.id}`), { token: s.token })).status, 204);
      assertProblem(await api('GET', studios(s.storeId, `/${st.id}`), { token: s.token }), 404, 'NOT_FOUND');
    });

    test('generate: one generation per kind holding n assets, of the contract sizes, valid PNGs served by signed URL', async () => {
      const s = await ownerWithStore(api);
      const res = await api('POST', studios(s.storeId), {
        token: s.token,
        body: { name: 'Atlas Tea', brief: { colors: ['#2a9d8f'] }, generate: { kinds: ['logo', 'icon', 'cover', 'palette'], n: 2, seed: 42 } },
      });
      assert.equal(res.status, 201, res.text);
      const list = await settled(api, s.token, s.storeId, res.body.id);
      assert.equal(list.length, 4);
      const sizes: Record<string, [number, number]> = { logo: [512, 512], icon: [256, 256], cover: [1536, 512], palette: [512, 128] };
      for (const g of list) {
        assert.match(g.id, /^gen_[0-9a-f]+$/);
        assert.equal(g.studioId, res.body.id);
        assert.equal(g.status, 'completed', JSON.stringify(g));
        assert.equal(g.progress, 1);
        assert.equal(g.seed, 42);
        assert.equal(g.error, null);
        assert.equal(g.provider, 'local');
        assert.equal(g.assets.length, 2);
        assert.match(g.prompt, /Atlas Tea/);
        for (const a of g.assets) {
          assert.match(a.id, /^ast_[0-9a-f]+$/);
          assert.deepEqual([a.width, a.height], sizes[g.kind]);
          const got = await fetchBytes(a.url);
          assert.equal(got.status, 200);
          assert.equal(got.headers.get('content-type'), 'image/png');
          assert.equal(sha256(got.bytes), a.sha256);
          const png = decodePng(got.bytes);
          assert.deepEqual([png.width, png.height], sizes[g.kind]);
          const expires = Number(new URL(a.url).searchParams.get('expires'));
          assert.ok(Math.abs(expires - (Date.now() / 1000 + 86_400)) < 120, 'valid for 24 h');
        }
        assert.notEqual(g.assets[0].sha256, g.assets[1].sha256, 'asset i uses seed + i');
      }
      const palette = list.find((g) => g.kind === 'palette');
      assert.equal(palette.colors.length, 5);
      assert.equal(palette.colors[0], '#2a9d8f', 'the brief colours lead the palette');
      assert.deepEqual(palette.assets[0].colors, palette.colors);
      // Newest first, in cursor pages.
      const p1 = await generations(api, s.token, s.storeId, res.body.id, '&limit=3');
      const rest = await api('GET', `/v1/ai/brand-studios/${res.body.id}/generations?storeId=${s.storeId}&limit=3&cursor=${(await api('GET', `/v1/ai/brand-studios/${res.body.id}/generations?storeId=${s.storeId}&limit=3`, { token: s.token })).body.nextCursor}`, { token: s.token });
      assert.deepEqual([...p1, ...rest.body.data].map((g: any) => g.id), list.map((g) => g.id));
      assert.deepEqual([...list.map((g) => g.id)].sort().reverse(), list.map((g) => g.id));
      assert.equal((await generations(api, s.token, s.storeId, res.body.id, '&kind=cover')).length, 1);
      assertProblem(await api('GET', `/v1/ai/brand-studios/${res.body.id}/generations?storeId=${s.storeId}&kind=banner`, { token: s.token }), 400, 'VALIDATION_FAILED');
    });

    test('the same prompt and seed give the same bytes through the service; different prompts differ', async () => {
      const s = await ownerWithStore(api);
      const make = async (name: string) => {
        const r = await api('POST', studios(s.storeId), { token: s.token, body: { name, generate: { kinds: ['logo'], seed: 9 } } });
        assert.equal(r.status, 201, r.text);
        return (await settled(api, s.token, s.storeId, r.body.id))[0];
      };
      const [a, b, c] = [await make('Same'), await make('Same'), await make('Other')];
      assert.equal(a.prompt, b.prompt);
      assert.equal(a.assets[0].sha256, b.assets[0].sha256);
      assert.notEqual(a.assets[0].sha256, c.assets[0].sha256);
    });

    test('generate with a prompt template: placeholders filled from props, template defaults and the brief', async () => {
      const s = await ownerWithStore(api);
      const schema = { type: 'object', properties: { brandName: { type: 'string' }, kind: { type: 'string' }, style: { type: 'string', enum: ['flat', 'neon'] } } };
      const platform = await api('POST', templates(), { token: admin.token, body: { name: 'Styled', prompt: 'A {{style}} {{kind}} for {{brandName}}', propsSchema: schema, props: { style: 'flat' } } });
      assert.equal(platform.status, 201, platform.text);
      const r = await api('POST', studios(s.storeId), { token: s.token, body: { name: 'Nomad', generate: { kinds: ['logo', 'icon'], promptTemplateId: platform.body.id, props: { style: 'neon' } } } });
      assert.equal(r.status, 201, r.text);
      const list = await settled(api, s.token, s.storeId, r.body.id);
      assert.deepEqual(list.map((g) => g.prompt).sort(), ['A neon icon for Nomad', 'A neon logo for Nomad']);
      const bad = await api('PATCH', studios(s.storeId, `/${r.body.id}`), { token: s.token, body: { generate: { kinds: ['logo'], promptTemplateId: platform.body.id, props: { style: 'gothic' } } } });
      assertProblem(bad, 400, 'VALIDATION_FAILED');
      assert.equal(bad.body.errors[0].path, 'generate.props.style');
      const needs = await api('POST', templates(), { token: admin.token, body: { name: 'Needs', prompt: '{{product}} by {{brandName}}', propsSchema: { type: 'object', properties: { product: { type: 'string' }, brandName: { type: 'string' } }, required: ['product'] } } });
      assert.equal(needs.status, 201, needs.text);
      const missing = await api('PATCH', studios(s.storeId, `/${r.body.id}`), { token: s.token, body: { generate: { kinds: ['logo'], promptTemplateId: needs.body.id } } });
      assertProblem(missing, 400, 'VALIDATION_FAILED');
      assert.equal(missing.body.errors[0].path, 'generate.props.product');
      const other = await ownerWithStore(api);
      const foreign = await api('POST', templates('', other.storeId), { token: other.token, body: { name: 'Theirs', prompt: 'theirs' } });
      const refused = await api('PATCH', studios(s.storeId, `/${r.body.id}`), { token: s.token, body: { generate: { kinds: ['logo'], promptTemplateId: foreign.body.id } } });
      assertProblem(refused, 400, 'VALIDATION_FAILED');
      assert.equal(refused.body.errors[0].path, 'generate.promptTemplateId');
      assertProblem(await api('PATCH', studios(s.storeId, `/${r.body.id}`), { token: s.token, body: { generate: { kinds: ['logo'], props: { a: 1 } } } }), 400, 'VALIDATION_FAILED');
      assertProblem(await api('PATCH', studios(s.storeId, `/${r.body.id}`), { token: s.token, body: { generate: { kinds: ['logo', 'logo'] } } }), 400, 'VALIDATION_FAILED');
      assertProblem(await api('PATCH', studios(s.storeId, `/${r.body.id}`), { token: s.token, body: { generate: { kinds: ['banner'] } } }), 400, 'VALIDATION_FAILED');
      assertProblem(await api('PATCH', studios(s.storeId, `/${r.body.id}`), { token: s.token, body: { generate: { kinds: ['logo'], n: 5 } } }), 400, 'VALIDATION_FAILED');
      assertProblem(await api('PATCH', studios(s.storeId, `/${r.body.id}`), { token: s.token, body: { generate: { kinds: [] } } }), 400, 'VALIDATION_FAILED');
      assert.equal((await generations(api, s.token, s.storeId, r.body.id)).length, 2, 'refused requests queue nothing');
    });

    test('primaries are picked only from completed assets of the same studio, of the same kind', async () => {
      const s = await ownerWithStore(api);
      const mk = async () => {
        const r = await api('POST', studios(s.storeId), { token: s.token, body: { name: 'P', generate: { kinds: ['logo', 'icon', 'cover'] } } });
        assert.equal(r.status, 201, r.text);
        const list = await settled(api, s.token, s.storeId, r.body.id);
        return { id: r.body.id, by: Object.fromEntries(list.map((g) => [g.kind, g.assets[0].id])) as Record<string, string> };
      };
      const one = await mk();
      const two = await mk();
      const path = `/v1/ai/brand-studios/${one.id}/primaries?storeId=${s.storeId}`;
      const ok = await api('PATCH', path, { token: s.token, body: { logo: one.by.logo, icon: one.by.icon, palette: ['#112233', '#AABBCC'] } });
      assert.equal(ok.status, 200, ok.text);
      assert.deepEqual(ok.body.primaries, { logo: one.by.logo, icon: one.by.icon, cover: null, palette: ['#112233', '#aabbcc'] });
      const foreign = await api('PATCH', path, { token: s.token, body: { cover: two.by.cover } });
      assertProblem(foreign, 400, 'VALIDATION_FAILED');
      assert.equal(foreign.body.errors[0].path, 'cover');
      const wrongKind = await api('PATCH', path, { token: s.token, body: { cover: one.by.logo } });
      assertProblem(wrongKind, 400, 'VALIDATION_FAILED');
      assertProblem(await api('PATCH', path, { token: s.token, body: { logo: 'ast_0000000000000000000000000000' } }), 400, 'VALIDATION_FAILED');
      assertProblem(await api('PATCH', path, { token: s.token, body: { palette: ['blue'] } }), 400, 'VALIDATION_FAILED');
      // An asset whose generation is not completed does not count, even in this studio.
      const conn = svc.service.deps.orm.em.fork().getConnection();
      await conn.execute(`update ai_generations set status = 'failed' where id = (select generation_id from ai_assets where id = ?)`, [one.by.cover]);
      assertProblem(await api('PATCH', path, { token: s.token, body: { cover: one.by.cover } }), 400, 'VALIDATION_FAILED');
      const viewer = await memberWithRole(api, s.token, s.storeId, 'viewer');
      assertProblem(await api('PATCH', path, { token: viewer.token, body: { logo: null } }), 403, 'FORBIDDEN');
      const cleared = await api('PATCH', path, { token: s.token, body: { logo: null } });
      assert.equal(cleared.body.primaries.logo, null);
      assert.equal(cleared.body.primaries.icon, one.by.icon);
      assert.deepEqual((await api('GET', studios(s.storeId, `/${one.id}`), { token: s.token })).body.primaries, cleared.body.primaries);
    });

    test('asset URLs: signed URLs work without a token and stop working when expired or altered; bearer access for members', async () => {
      const s = await ownerWithStore(api);
      const r = await api('POST', studios(s.storeId), { token: s.token, body: { name: 'U', generate: { kinds: ['icon'], n: 2 } } });
      const [g] = await settled(api, s.token, s.storeId, r.body.id);
      const [a, b] = g.assets;
      const good = await fetchBytes(a.url);
      assert.equal(good.status, 200);
      assert.equal(good.headers.get('etag'), `"${a.sha256}"`);
      assert.equal((await fetchBytes(a.url, { 'if-none-match': `"${a.sha256}"` })).status, 304);

      const u = new URL(a.url);
      const sig = u.searchParams.get('signature')!;
      const expires = u.searchParams.get('expires')!;
      const tampered = [
        `${svc.url}/v1/ai/assets/${a.id}?expires=${expires}&signature=${sig.slice(0, -2)}${sig.endsWith('AA') ? 'BB' : 'AA'}`,
        `${svc.url}/v1/ai/assets/${a.id}?expires=${Number(expires) + 3600}&signature=${sig}`,
        `${svc.url}/v1/ai/assets/${b.id}?expires=${expires}&signature=${sig}`,
        `${svc.url}/v1/ai/assets/${a.id}?expires=${expires}`,
        `${svc.url}/v1/ai/assets/${a.id}?signature=${sig}`,
      ];
      const bodies = new Set<string>();
      for (const url of tampered) {
        const res = await api('GET', url.slice(svc.url.length));
        assertProblem(res, 401, 'UNAUTHENTICATED');
        bodies.add(res.text);
      }
      assert.equal(bodies.size, 1, 'one body, whatever was wrong');
      // Signed with the server's key but already expired.
      const config = svc.service.deps.config;
      const expired = signedAssetPath(config, a.id, Math.floor(Date.now() / 1000) - 1);
      assertProblem(await api('GET', expired), 401, 'UNAUTHENTICATED');
      const fresh = signedAssetPath(config, a.id, Math.floor(Date.now() / 1000) + 60);
      assert.equal((await fetchBytes(svc.url + fresh)).status, 200);

      assert.equal((await fetchBytes(`${svc.url}/v1/ai/assets/${a.id}`, { authorization: `Bearer ${s.token}` })).status, 200);
      assertProblem(await api('GET', `/v1/ai/assets/${a.id}`), 401, 'UNAUTHENTICATED');
      const stranger = await signup(api);
      assertProblem(await api('GET', `/v1/ai/assets/${a.id}`, { token: stranger.token }), 404, 'NOT_FOUND');
      assertProblem(await api('GET', `/v1/ai/assets/ast_nope`, { token: s.token }), 404, 'NOT_FOUND');
      assertProblem(await api('GET', `/v1/ai/assets/${a.id}?size=2`, { token: s.token }), 400, 'BAD_REQUEST');
      // Deleting the studio deletes its assets: a signed URL then finds nothing.
      assert.equal((await api('DELETE', studios(s.storeId, `/${r.body.id}`), { token: s.token })).status, 204);
      assertProblem(await api('GET', a.url.slice(svc.url.length)), 404, 'NOT_FOUND');
    });

    test('aiGenerationUpdated reaches realtime subscribers that name it, and nothing else: not webhooks, not unfiltered streams', async () => {
      const s = await ownerWithStore(api);
      assertProblem(await api('POST', `/v1/stores/${s.storeId}/integrations/webhooks`, { token: s.token, body: { name: 'h', url: 'https://example.com/h', events: ['aiGenerationUpdated'] } }), 400, 'VALIDATION_FAILED');
      const hook = await api('POST', `/v1/stores/${s.storeId}/integrations/webhooks`, { token: s.token, body: { name: 'h', url: 'https://example.com/h' } });
      assert.equal(hook.status, 201, hook.text);
      const named = await openSse(`${svc.url}/v1/stores/${s.storeId}/events/stream?events=aiGenerationUpdated,productCreated`, { authorization: `Bearer ${s.token}` });
      const unfiltered = await openSse(`${svc.url}/v1/stores/${s.storeId}/events/stream`, { authorization: `Bearer ${s.token}` });
      const sub = gqlSubscribe(svc.url, s.token, STORE_EVENTS, { storeId: s.storeId, events: ['ai_generation_updated'] });
      try {
        assert.equal(named.status, 200);
        await sub.connected;
        await sleep(200);
        const r = await api('POST', studios(s.storeId), { token: s.token, body: { name: 'Live', generate: { kinds: ['logo'] } } });
        assert.equal(r.status, 201, r.text);
        await settled(api, s.token, s.storeId, r.body.id);
        await api('POST', `/v1/stores/${s.storeId}/products`, { token: s.token, body: { name: 'Tea', price: 1 } });
        const msgs = await named.waitFor(4);
        const ai = msgs.filter((m) => m.event === 'aiGenerationUpdated').map((m) => JSON.parse(m.data));
        assert.deepEqual(ai.map((e) => e.data.generation.status), ['pending', 'processing', 'completed']);
        assert.deepEqual(ai.map((e) => e.data.generation.progress), [0, 0.1, 1]);
        assert.equal(ai[2].data.store_id, s.storeId);
        assert.equal(ai[2].data.generation.assets.length, 1);
        assert.equal(msgs[3].event, 'productCreated');
        await unfiltered.waitFor(1);
        assert.deepEqual(unfiltered.messages.map((m) => m.event), ['productCreated']);
        await until('subscription events', async () => sub.results.length >= 3);
        assert.deepEqual(sub.results.map((x: any) => x.data.storeEvents.event), ['aiGenerationUpdated', 'aiGenerationUpdated', 'aiGenerationUpdated']);
        // The feed too: realtime-only events only when asked for.
        const feed = await api('GET', `/v1/stores/${s.storeId}/events`, { token: s.token });
        assert.equal(feed.status, 200, feed.text);
        assert.deepEqual(feed.body.data.map((e: any) => e.event), ['productCreated']);
        const asked = await api('GET', `/v1/stores/${s.storeId}/events?events=aiGenerationUpdated`, { token: s.token });
        assert.equal(asked.body.data.length, 3);
        const conn = svc.service.deps.orm.em.fork().getConnection();
        const [{ n }] = await conn.execute(`select count(*)::int as n from pgboss.job where name = 'webhook-delivery' and data->>'storeId' = ?`, [s.storeId]);
        assert.equal(n, 1, 'only productCreated was queued for the webhook');
      } finally {
        await named.close();
        await unfiltered.close();
        sub.close();
      }
    });
  });
});

/** A brand-new store with a studio generating `kinds`; returns what the later checks need. */
async function studioWith(api: Api, kinds: string[], n = 1) {
  const s = await ownerWithStore(api);
  const r = await api('POST', studios(s.storeId), { token: s.token, body: { name: 'Remote', generate: { kinds, n, seed: 5 } } });
  assert.equal(r.status, 201, r.text);
  return { ...s, studioId: r.body.id as string };
}

function openAiEnv(fake: FakeOpenAiImages, extra: Record<string, string> = {}): Record<string, string> {
  return { SOUK_AI_PROVIDER: 'openai', SOUK_AI_IMAGES_URL: fake.url, SOUK_AI_API_KEY: fake.apiKey, ...extra };
}

describe('openai provider', () => {
  let fake: FakeOpenAiImages;
  let svc: TestService;
  let api: Api;

  before(async () => {
    fake = await startFakeOpenAiImages();
    svc = await startTestService(openAiEnv(fake, { SOUK_AI_TIMEOUT_MS: '3000' }));
    api = client(svc.url);
  });
  after(async () => {
    await svc.close();
    await fake.close();
  });

  const reset = (mode: 'ok' | 'rate-limit' | 'hang' | 'unauthorized', script: Array<'ok' | 'rate-limit' | 'hang'> = []) => {
    fake.state.mode = mode;
    fake.state.script = script;
    fake.requests.length = 0;
  };

  test("speaks OpenAI's wire shape and brings answers to the contract sizes", async () => {
    reset('ok');
    const s = await studioWith(api, ['logo', 'cover', 'palette'], 2);
    const list = await settled(api, s.token, s.storeId, s.studioId);
    assert.deepEqual(fake.problems, []);
    assert.equal(fake.requests.length, 2, 'palettes are drawn locally');
    const bySize = Object.fromEntries(fake.requests.map((r) => [r.body.size, r]));
    assert.deepEqual(Object.keys(bySize).sort(), ['1024x1024', '1536x1024']);
    for (const r of fake.requests) {
      assert.equal(r.headers.authorization, `Bearer ${fake.apiKey}`);
      assert.equal(r.body.model, 'gpt-image-1');
      assert.equal(r.body.n, 2);
      assert.match(String(r.body.prompt), /Remote/);
    }
    for (const g of list) {
      assert.equal(g.status, 'completed', JSON.stringify(g));
      assert.equal(g.attempts, 1);
      assert.equal(g.provider, g.kind === 'palette' ? 'local' : 'openai');
      if (g.kind !== 'palette') assert.equal(g.model, 'gpt-image-1');
      for (const a of g.assets) {
        const png = decodePng((await fetchBytes(a.url)).bytes);
        assert.deepEqual([png.width, png.height], [a.width, a.height]);
        assert.deepEqual([a.width, a.height], g.kind === 'logo' ? [512, 512] : g.kind === 'cover' ? [1536, 512] : [512, 128]);
      }
    }
  });

  test('other OpenAI-compatible models are asked for the exact size, with response_format b64_json', async () => {
    reset('ok');
    const { openAiImages } = await import('../src/providers/openai-images/openai-images.js');
    const provider = openAiImages({ url: fake.url, apiKey: fake.apiKey, model: 'flux-schnell', timeoutMs: 10_000, cpu: svc.service.deps.cpu });
    const images = await provider.generate({ prompt: 'a cover', width: 1536, height: 512, n: 3, seed: 1 }, new AbortController().signal);
    assert.deepEqual(fake.problems, []);
    assert.equal(fake.requests[0].body.size, '1536x512');
    assert.equal(fake.requests[0].body.response_format, 'b64_json');
    assert.equal(images.length, 3);
    for (const img of images) assert.deepEqual([decodePng(img.png).width, decodePng(img.png).height], [1536, 512]);
  });

  test('32 sequential PATCHes with generate while earlier generations run: never a 409 (a 422 over 8 unfinished is waited out)', async () => {
    reset('ok');
    const s = await studioWith(api, ['logo']);
    const unfinished = async () => (await generations(api, s.token, s.storeId, s.studioId)).filter((g) => g.status === 'pending' || g.status === 'processing').length;
    const statuses: number[] = [];
    for (let i = 0; i < 32; ) {
      const r = await api('PATCH', studios(s.storeId, `/${s.studioId}`), { token: s.token, body: { brief: { keywords: [`k${i}`] }, generate: { kinds: ['logo'], seed: i } } });
      statuses.push(r.status);
      if (r.status === 422) {
        // The documented limit: wait for a slot, as a client reading the 422 would.
        assertProblem(r, 422, 'LIMIT_EXCEEDED');
        await until('a free slot', async () => (await unfinished()) < 8);
        continue;
      }
      assert.equal(r.status, 200, `request ${statuses.length}: ${r.text}`);
      i++;
    }
    assert.ok(!statuses.includes(409), statuses.join(','));
    const list = await settled(api, s.token, s.storeId, s.studioId, 60_000);
    assert.equal(list.length, 33);
    assert.ok(list.every((g) => g.status === 'completed'), JSON.stringify(list.map((g) => g.error)));
  });

  test('a 429 is retried: the generation completes on the next attempt', async () => {
    reset('ok', ['rate-limit']);
    const s = await studioWith(api, ['icon']);
    const [g] = await settled(api, s.token, s.storeId, s.studioId);
    assert.equal(g.status, 'completed', JSON.stringify(g));
    assert.equal(g.attempts, 2);
    assert.equal(g.error, null);
    assert.deepEqual(fake.requests.map((r) => r.mode), ['rate-limit', 'ok']);
  });

  test('a provider that keeps answering 429 fails the generation after two retries, with the error', async () => {
    reset('rate-limit');
    const s = await studioWith(api, ['logo']);
    const [g] = await settled(api, s.token, s.storeId, s.studioId, 60_000);
    assert.equal(g.status, 'failed');
    assert.equal(g.attempts, 3);
    assert.equal(g.progress, 0);
    assert.deepEqual(g.assets, []);
    assert.match(g.error, /rate limiting \(HTTP 429/);
    assert.equal(fake.requests.length, 3);
  });

  test('a provider that does not answer times out; two retries, then failed with the error', async () => {
    reset('hang');
    const s = await studioWith(api, ['logo']);
    const [g] = await settled(api, s.token, s.storeId, s.studioId, 60_000);
    assert.equal(g.status, 'failed');
    assert.equal(g.attempts, 3);
    assert.match(g.error, /did not answer within 3 s/);
    assert.equal(fake.requests.length, 3);
    fake.dropHanging();
  });

  test('refused credentials fail at once (no retry) and the key never shows', async () => {
    reset('unauthorized');
    const s = await studioWith(api, ['logo']);
    const [g] = await settled(api, s.token, s.storeId, s.studioId);
    assert.equal(g.status, 'failed');
    assert.equal(g.attempts, 1);
    assert.match(g.error, /refused the credentials \(HTTP 401\)/);
    assert.ok(!JSON.stringify(g).includes(fake.apiKey));
    assert.equal(fake.requests.length, 1);
  });

  test('chosen but not configured (no SOUK_AI_API_KEY): generating answers 503 NOT_CONFIGURED', async () => {
    const bare = await startTestService({ SOUK_AI_PROVIDER: 'openai', SOUK_AI_IMAGES_URL: fake.url });
    try {
      const a = client(bare.url);
      const s = await ownerWithStore(a);
      assertProblem(await a('POST', studios(s.storeId), { token: s.token, body: { name: 'x', generate: { kinds: ['logo'] } } }), 503, 'NOT_CONFIGURED');
      const plain = await a('POST', studios(s.storeId), { token: s.token, body: { name: 'x' } });
      assert.equal(plain.status, 201, 'a studio without generations needs no provider');
      assertProblem(await a('PATCH', studios(s.storeId, `/${plain.body.id}`), { token: s.token, body: { generate: { kinds: ['icon'] } } }), 503, 'NOT_CONFIGURED');
      assert.equal((await a('GET', studios(s.storeId), { token: s.token })).body.data.length, 1);
    } finally {
      await bare.close();
    }
  });
});

describe('limits', () => {
  test('more than 8 unfinished generations per store → 422 LIMIT_EXCEEDED, also under 20 concurrent requests', async () => {
    const fake = await startFakeOpenAiImages();
    fake.state.mode = 'hang';
    const svc = await startTestService(openAiEnv(fake, { SOUK_AI_TIMEOUT_MS: '60000' }));
    try {
      const api = client(svc.url);
      const s = await ownerWithStore(api);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => api('POST', studios(s.storeId), { token: s.token, body: { name: `S${i}`, generate: { kinds: ['logo'] } } })),
      );
      const created = results.filter((r) => r.status === 201);
      for (const r of results.filter((x) => x.status !== 201)) assertProblem(r, 422, 'LIMIT_EXCEEDED');
      assert.equal(created.length, 8);
      const conn = svc.service.deps.orm.em.fork().getConnection();
      const [{ n, studiosN }] = await conn.execute(
        `select (select count(*)::int from ai_generations where store_id = ? and status in ('pending','processing')) as n,
                (select count(*)::int from ai_brand_studios where store_id = ?) as "studiosN"`,
        [s.storeId, s.storeId],
      );
      assert.equal(n, 8);
      assert.equal(studiosN, 8, 'a refused request creates nothing');
      // Counted per store, and a request is refused whole: 2 kinds where 1 slot is free.
      const other = await ownerWithStore(api);
      const four = await api('POST', studios(other.storeId), { token: other.token, body: { name: 'A', generate: { kinds: ['logo', 'icon', 'cover', 'palette'] } } });
      assert.equal(four.status, 201, four.text);
      const path = studios(other.storeId, `/${four.body.id}`);
      assert.equal((await api('PATCH', path, { token: other.token, body: { generate: { kinds: ['logo', 'icon', 'cover'] } } })).status, 200);
      assertProblem(await api('PATCH', path, { token: other.token, body: { generate: { kinds: ['logo', 'icon'] } } }), 422, 'LIMIT_EXCEEDED');
      assert.equal((await api('PATCH', path, { token: other.token, body: { generate: { kinds: ['icon'] } } })).status, 200);
      const ninth = await api('PATCH', path, { token: other.token, body: { generate: { kinds: ['cover'] } } });
      assertProblem(ninth, 422, 'LIMIT_EXCEEDED');
      assert.match(ninth.body.detail, /8 unfinished/);
    } finally {
      await svc.close();
      await fake.close();
    }
  });

  test('the daily quota (SOUK_AI_DAILY_QUOTA) → 422 LIMIT_EXCEEDED, per store, exact under concurrency, renewed each UTC day', async () => {
    const svc = await startTestService({ SOUK_AI_DAILY_QUOTA: '3' });
    try {
      const api = client(svc.url);
      const s = await ownerWithStore(api);
      const r = await api('POST', studios(s.storeId), { token: s.token, body: { name: 'Q', generate: { kinds: ['logo', 'icon'] } } });
      assert.equal(r.status, 201, r.text);
      const path = studios(s.storeId, `/${r.body.id}`);
      assertProblem(await api('PATCH', path, { token: s.token, body: { generate: { kinds: ['cover', 'palette'] } } }), 422, 'LIMIT_EXCEEDED');
      assert.equal((await api('PATCH', path, { token: s.token, body: { generate: { kinds: ['cover'] } } })).status, 200);
      const over = await api('PATCH', path, { token: s.token, body: { generate: { kinds: ['palette'] } } });
      assertProblem(over, 422, 'LIMIT_EXCEEDED');
      assert.match(over.body.detail, /daily quota of 3/);
      assert.equal((await generations(api, s.token, s.storeId, r.body.id)).length, 3);

      const racer = await ownerWithStore(api);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => api('POST', studios(racer.storeId), { token: racer.token, body: { name: `R${i}`, generate: { kinds: ['palette'] } } })),
      );
      assert.equal(results.filter((x) => x.status === 201).length, 3);
      for (const x of results.filter((y) => y.status !== 201)) assertProblem(x, 422, 'LIMIT_EXCEEDED');

      // Yesterday's count does not weigh on today.
      const conn = svc.service.deps.orm.em.fork().getConnection();
      await conn.execute('update ai_usage set day = day - 1 where store_id = ?', [s.storeId]);
      assert.equal((await api('PATCH', path, { token: s.token, body: { generate: { kinds: ['palette'] } } })).status, 200);
    } finally {
      await svc.close();
    }
  });
});

describe('a crash mid-generation', () => {
  test('a service stopped while processing hands the attempt back: after restart it is retried, not stuck in processing', async () => {
    const fake = await startFakeOpenAiImages();
    fake.state.mode = 'hang';
    const db = await freshDatabase();
    const dataDir = mkdtempSync(join(tmpdir(), 'souk-ai-stop-'));
    const reuse = { databaseUrl: db.url, dataDir };
    const env = openAiEnv(fake, { SOUK_AI_TIMEOUT_MS: '60000' });
    try {
      const first = await startTestService(env, reuse);
      const api1 = client(first.url);
      const s = await studioWith(api1, ['logo']);
      await fake.waitForRequests(1);
      assert.equal((await generations(api1, s.token, s.storeId, s.studioId))[0].status, 'processing');
      await first.close();
      fake.state.mode = 'ok';
      const second = await startTestService(env, reuse);
      try {
        const api2 = client(second.url);
        const [g] = await settled(api2, s.token, s.storeId, s.studioId);
        assert.equal(g.status, 'completed', JSON.stringify(g));
        assert.equal(g.attempts, 2);
        assert.equal(fake.requests.length, 2);
        // The stopping service put it back to pending itself; the restarted one ran it again.
        const history = await api2('GET', `/v1/stores/${s.storeId}/events?events=aiGenerationUpdated`, { token: s.token });
        const steps = history.body.data.map((e: any) => [e.data.generation.status, e.data.generation.attempts]);
        assert.deepEqual(steps, [['pending', 0], ['processing', 1], ['pending', 1], ['processing', 2], ['completed', 2]]);
        assert.match(history.body.data[2].data.generation.error, /service stopped/);
      } finally {
        await second.close();
      }
    } finally {
      await fake.close();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('a killed process (SIGKILL while processing): its lease lapses and the generation is retried after restart', { skip: process.env.DATABASE_URL ? false : 'needs DATABASE_URL: a second process cannot open the embedded database' }, async () => {
    const fake = await startFakeOpenAiImages();
    fake.state.mode = 'hang';
    const db = await freshDatabase();
    const dataDir = mkdtempSync(join(tmpdir(), 'souk-ai-kill-'));
    const secret = randomBytes(32).toString('hex');
    const env = openAiEnv(fake, { SOUK_AI_TIMEOUT_MS: '60000', SOUK_SECRET_KEY: secret });
    let child: ChildProcess | null = null;
    try {
      const port = await freePort();
      child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        env: { ...process.env, ...env, NODE_ENV: 'test', DATABASE_URL: db.url!, SOUK_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', SOUK_AUTH_RATE_LIMIT: '100000', SOUK_AUTH_RATE_LIMIT_IP: '100000' },
        stdio: 'ignore',
      });
      const base = `http://127.0.0.1:${port}`;
      await until('the child service', async () => (await fetch(`${base}/healthz`).catch(() => null))?.ok, 60_000);
      const api1 = client(base);
      const s = await studioWith(api1, ['logo']);
      await fake.waitForRequests(1);
      assert.equal((await generations(api1, s.token, s.storeId, s.studioId))[0].status, 'processing');
      child.kill('SIGKILL');
      await new Promise((r) => child!.once('exit', r));
      fake.dropHanging();
      fake.state.mode = 'ok';
      const second = await startTestService(env, { databaseUrl: db.url, dataDir });
      try {
        const api2 = client(second.url);
        const [g] = await settled(api2, s.token, s.storeId, s.studioId, 60_000);
        assert.equal(g.status, 'completed', JSON.stringify(g));
        assert.equal(g.attempts, 2);
        assert.equal(fake.requests.length, 2);
        // The dead attempt's lease lapsed; the sweeper handed it back to the queue, which retried it.
        const history = await api2('GET', `/v1/stores/${s.storeId}/events?events=aiGenerationUpdated`, { token: s.token });
        const steps = history.body.data.map((e: any) => [e.data.generation.status, e.data.generation.attempts]);
        assert.deepEqual(steps, [['pending', 0], ['processing', 1], ['pending', 1], ['processing', 2], ['completed', 2]]);
        assert.match(history.body.data[2].data.generation.error, /worker stopped during attempt 1/);
      } finally {
        await second.close();
      }
    } finally {
      if (child && child.exitCode === null) child.kill('SIGKILL');
      await fake.close();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

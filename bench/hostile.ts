// Hostile input: the attacks of issue 27 (a Markdown render bomb on the public page view, merged
// PDFs of many large purchase orders, a catastrophic `pattern` in a template component's and a
// prompt template's schema) and the noisy neighbour of issue 35 (one store's page writes that run
// to the render deadline while another store writes pages and downloads PDFs, one at a time),
// each sent 10 at a time for a while, while a prober asks /healthz every 20 ms. Prints, per
// attack, what the hostile requests got (2xx, 4xx, 429 or 503 with Retry-After, anything else, or
// no answer within their budget), what the other store got, and /healthz's latency; then the same against
// a baseline (BENCH_BASELINE_COMMIT, default 2260521, the last main before the CPU pool, checked
// out in a temporary git worktree) to show the stall it prevents. BENCH_BASELINE_COMMIT=none
// skips the baseline. Each attack gets a fresh service on a fresh PostgreSQL database.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { fmt, freshDatabase, json, machine, pct, ROOT, rssOf, userAndStore } from './lib.js';

const CONCURRENCY = 10;
/** How long each attack keeps its 10 workers sending. */
const ATTACK_MS = Number(process.env.BENCH_ATTACK_MS ?? 12_000);
const SECRET = '00'.repeat(32);

interface Service {
  url: string;
  pid: number;
  kill(): Promise<void>;
}

/** The service of `root` as `npm start` runs it, on a fresh database; killed with SIGKILL (a stalled one would not stop in time). */
async function start(root: string, databaseUrl: string): Promise<Service> {
  const dir = mkdtempSync(join(tmpdir(), 'souk-hostile-'));
  // BENCH_PROFILE=dir: a V8 CPU profile of each service's main thread there.
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  const proc = spawn(process.execPath, [...profile, join(root, 'scripts/start.mjs')], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: '0',
      DATABASE_URL: databaseUrl,
      SOUK_DATA_DIR: join(dir, 'data'),
      SOUK_SECRET_KEY: SECRET,
      SOUK_AUTH_RATE_LIMIT: '100000',
      SOUK_AUTH_RATE_LIMIT_IP: '100000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  proc.stderr!.on('data', (d) => (err = (err + d).slice(-2000)));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /souk listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
      if (out.length > 100_000) out = out.slice(-10_000);
    });
    proc.once('exit', (code) => reject(new Error(`the service exited (${code}) before listening: ${err}`)));
  });
  return {
    url,
    pid: proc.pid!,
    async kill() {
      if (proc.exitCode === null && proc.signalCode === null) {
        const exited = new Promise((r) => proc.once('exit', r));
        // A profile is written on a clean exit only; otherwise no time is given.
        proc.kill(process.env.BENCH_PROFILE ? 'SIGTERM' : 'SIGKILL');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

interface Outcome {
  status: number;
  retryAfter: boolean;
  ms: number;
}

/** One request with a client-side limit: past it the request counts as not answered (status 0). */
async function hit(url: string, init: RequestInit, limitMs: number): Promise<Outcome> {
  const t = performance.now();
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(limitMs) });
    await res.arrayBuffer();
    return { status: res.status, retryAfter: res.headers.has('retry-after'), ms: performance.now() - t };
  } catch {
    return { status: 0, retryAfter: false, ms: performance.now() - t };
  }
}

/** /healthz every 20 ms until stopped; latencies in ms (a probe that gets no answer in 10 s counts 10 s). */
function probe(url: string): { stop(): Promise<number[]> } {
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const o = await hit(`${url}/healthz`, {}, 10_000);
      latencies.push(o.status === 200 ? o.ms : 10_000);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return latencies.sort((a, b) => a - b);
    },
  };
}

interface Attack {
  name: string;
  /** What a request may take, by the design: waiting for a thread plus its deadline, with slack for a loaded machine. */
  budgetMs: number;
  /** Makes what the attack needs; returns the request to repeat. */
  setup(url: string, token: string, storeId: string, databaseUrl: string): Promise<() => Promise<Outcome>>;
  /** Another store's ordinary work, sent one request at a time while the attack runs. */
  neighbour?(url: string): Promise<() => Promise<Outcome>>;
}

const post = (token: string, body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
  body: JSON.stringify(body),
});

/** Purchase orders of 500 items with Arabic names (shaped per cell: the costly case). */
async function largePos(url: string, token: string, storeId: string, count: number): Promise<string[]> {
  const items = Array.from({ length: 500 }, (_, i) => ({ name: `منتج رقم ${i + 1} بالعربية مع وصف`, sku: `SKU-${i}`, qtyOrdered: 3, unitCost: 123.45 }));
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const po = await json(url, 'POST', `/v1/finance/purchase-orders?storeId=${storeId}`, { supplier: { name: 'مورد الجزائر', email: 'supplier@example.com' }, items }, token);
    ids.push(po.id);
  }
  return ids;
}

const BOMB = '*a'.repeat(49_000);
/** Inline HTML the parser reworks for every tag: seconds of a thread, and nothing the write-time check refuses. */
const SLOW_BODY = '<i>'.repeat(87_000);

const ALL_ATTACKS: Attack[] = [
  {
    name: 'page view, render bomb ("*a" x 49,000)',
    budgetMs: 2_000 + 5_000 + 3_000,
    async setup(url, token, storeId, databaseUrl) {
      const res = await fetch(`${url}/v1/pages?storeId=${storeId}`, post(token, { title: 'Bomb', slug: 'bomb', status: 'published', body: BOMB }));
      if (res.status !== 201) {
        // Refused at write (as it should be): the bomb is then a page stored before that check, with no HTML yet.
        await json(url, 'POST', `/v1/pages?storeId=${storeId}`, { title: 'Bomb', slug: 'bomb', status: 'published', body: 'x' }, token);
        const db = new pg.Client({ connectionString: databaseUrl });
        await db.connect();
        await db.query(`update pages set body = $1, html = null where slug = 'bomb'`, [BOMB]);
        await db.end();
      }
      return () => hit(`${url}/v1/pages/view/bomb?storeId=${storeId}`, {}, 60_000);
    },
  },
  {
    name: 'batch PDF, 10 POs x 500 items',
    budgetMs: 2_000 + 5_000 + 5 * 5_000 + 3_000,
    async setup(url, token, storeId) {
      const ids = await largePos(url, token, storeId, 10);
      return () => hit(`${url}/v1/finance/purchase-orders:batchPdf?storeId=${storeId}`, post(token, { ids }), 120_000);
    },
  },
  {
    name: 'batch PDF, 4 POs x 500 items',
    budgetMs: 2_000 + 5_000 + 5 * 2_000 + 3_000,
    async setup(url, token, storeId) {
      const ids = await largePos(url, token, storeId, 4);
      return () => hit(`${url}/v1/finance/purchase-orders:batchPdf?storeId=${storeId}`, post(token, { ids }), 120_000);
    },
  },
  {
    name: 'noisy neighbour, slow page writes',
    budgetMs: 2_000 + 5_000 + 3_000,
    async setup(url, token, storeId) {
      return () => hit(`${url}/v1/pages?storeId=${storeId}`, post(token, { title: 'Slow', body: SLOW_BODY }), 60_000);
    },
    async neighbour(url) {
      const { token, storeId } = await userAndStore(url, 'neighbour');
      const items = Array.from({ length: 20 }, (_, i) => ({ name: `منتج ${i + 1}`, qtyOrdered: 2, unitCost: 3.5 }));
      const { id: po } = await json(url, 'POST', `/v1/finance/purchase-orders?storeId=${storeId}`, { supplier: { name: 'مورد' }, items }, token);
      let i = 0;
      return () =>
        i++ % 3 === 2
          ? hit(`${url}/v1/finance/purchase-orders/${po}/pdf?storeId=${storeId}`, { headers: { authorization: `Bearer ${token}` } }, 60_000)
          : hit(`${url}/v1/pages?storeId=${storeId}`, post(token, { title: `Page ${i}`, body: `# Page ${i}\n\nSome *text*.` }), 60_000);
    },
  },
  {
    name: 'regex bomb, component + prompt template',
    budgetMs: 2_000 + 2_000 + 3_000,
    async setup(url, token, storeId) {
      const schema = { type: 'object', properties: { t: { type: 'string', pattern: '^(a+)+$' } } };
      const value = { t: `${'a'.repeat(28)}!` };
      let i = 0;
      return () =>
        i++ % 2
          ? hit(`${url}/v1/template_components?storeId=${storeId}`, post(token, { title: 'x', code: '', propsSchema: schema, propsDefault: value }), 60_000)
          : hit(`${url}/v1/ai/image-prompt-templates?storeId=${storeId}`, post(token, { name: 'x', prompt: 'a {{t}}', propsSchema: schema, props: value }), 60_000);
    },
  },
];

/** BENCH_ONLY=word: only the attacks whose name holds it. */
const ATTACKS = ALL_ATTACKS.filter((a) => !process.env.BENCH_ONLY || a.name.includes(process.env.BENCH_ONLY));

interface Row {
  attack: string;
  sent: number;
  ok2xx: number;
  client4xx: number;
  limited429: number;
  busy503: number;
  other: number;
  late: number;
  maxMs: number;
  budgetMs: number;
  health: number[];
  rssMiB: number;
  /** What the other store got, for attacks with one. */
  neighbour: Outcome[] | null;
}

async function run(label: string, root: string): Promise<Row[]> {
  const rows: Row[] = [];
  for (const attack of ATTACKS) {
    const db = await freshDatabase('hostile');
    const svc = await start(root, db.url);
    try {
      const { token, storeId } = await userAndStore(svc.url, 'hostile');
      const once = await attack.setup(svc.url, token, storeId, db.url);
      const other = attack.neighbour ? await attack.neighbour(svc.url) : null;
      const prober = probe(svc.url);
      const outcomes: Outcome[] = [];
      const neighbour: Outcome[] = [];
      const until = performance.now() + ATTACK_MS;
      await Promise.all([
        ...Array.from({ length: CONCURRENCY }, async () => {
          while (performance.now() < until) outcomes.push(await once());
        }),
        (async () => {
          while (other && performance.now() < until) neighbour.push(await other());
        })(),
      ]);
      const health = await prober.stop();
      const rssMiB = rssOf(svc.pid);
      const count = (f: (o: Outcome) => boolean) => outcomes.filter(f).length;
      rows.push({
        attack: attack.name,
        sent: outcomes.length,
        ok2xx: count((o) => o.status >= 200 && o.status < 300),
        client4xx: count((o) => o.status >= 400 && o.status < 500 && o.status !== 429),
        limited429: count((o) => o.status === 429 && o.retryAfter),
        busy503: count((o) => o.status === 503 && o.retryAfter),
        other: count((o) => o.status !== 0 && !(o.status < 300 || (o.status >= 400 && o.status < 500 && o.status !== 429) || ((o.status === 429 || o.status === 503) && o.retryAfter))),
        late: count((o) => o.status === 0 || o.ms > attack.budgetMs),
        maxMs: Math.max(...outcomes.map((o) => o.ms)),
        budgetMs: attack.budgetMs,
        health,
        rssMiB,
        neighbour: other ? neighbour : null,
      });
      console.error(`  ${label}: ${attack.name} done`);
    } finally {
      await svc.kill();
      await db.drop();
    }
  }
  return rows;
}

function print(label: string, rows: Row[]): void {
  console.log(`\n${label}`);
  console.log(
    `${'attack'.padEnd(42)}${'sent'.padStart(6)}${'2xx'.padStart(6)}${'4xx'.padStart(6)}${'429+RA'.padStart(8)}${'503+RA'.padStart(8)}${'other'.padStart(7)}${'late'.padStart(6)}${'max ms'.padStart(9)}${'budget'.padStart(8)}` +
      `${'healthz n'.padStart(11)}${'p50'.padStart(7)}${'p99'.padStart(7)}${'max'.padStart(8)}${'RSS MiB'.padStart(9)}`,
  );
  for (const r of rows) {
    console.log(
      `${r.attack.padEnd(42)}${String(r.sent).padStart(6)}${String(r.ok2xx).padStart(6)}${String(r.client4xx).padStart(6)}${String(r.limited429).padStart(8)}${String(r.busy503).padStart(8)}${String(r.other).padStart(7)}${String(r.late).padStart(6)}` +
        `${fmt(r.maxMs).padStart(9)}${fmt(r.budgetMs).padStart(8)}${String(r.health.length).padStart(11)}${fmt(pct(r.health, 50), 1).padStart(7)}${fmt(pct(r.health, 99), 1).padStart(7)}${fmt(r.health.at(-1) ?? NaN).padStart(8)}${fmt(r.rssMiB).padStart(9)}`,
    );
  }
  for (const r of rows.filter((x) => x.neighbour)) {
    const n = r.neighbour!;
    const ms = n.map((o) => o.ms).sort((a, b) => a - b);
    const count = (f: (o: Outcome) => boolean) => n.filter(f).length;
    console.log(
      `  the other store during "${r.attack}" (pages and PDFs, one at a time): ${n.length} sent, ${count((o) => o.status >= 200 && o.status < 300)} 2xx, ` +
        `${count((o) => o.status >= 400 && o.status < 500 && o.status !== 429)} 4xx, ${count((o) => o.status === 429)} 429, ${count((o) => o.status === 503)} 503, ` +
        `${count((o) => o.status === 0 || o.status >= 500)} other; latency p50 ${fmt(pct(ms, 50))} ms, p99 ${fmt(pct(ms, 99))} ms; /healthz p99 ${fmt(pct(r.health, 99), 1)} ms`,
    );
  }
}

/** A worktree of the baseline commit sharing this checkout's node_modules (its dependencies are a subset). */
function baselineRoot(commit: string): { root: string; remove(): void } {
  const root = join(mkdtempSync(join(tmpdir(), 'souk-baseline-')), 'souk');
  execFileSync('git', ['worktree', 'add', '--detach', root, commit], { cwd: ROOT, stdio: 'ignore' });
  if (!existsSync(join(root, 'node_modules'))) symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
  return {
    root,
    remove() {
      execFileSync('git', ['worktree', 'remove', '--force', root], { cwd: ROOT, stdio: 'ignore' });
    },
  };
}

console.log(`souk bench:hostile  ${machine()}  (${CONCURRENCY} at a time, ${ATTACK_MS / 1000} s per attack; healthz probed every 20 ms)`);
const current = await run('this checkout', ROOT);
print('this checkout', current);
const commit = process.env.BENCH_BASELINE_COMMIT ?? '2260521';
if (commit !== 'none') {
  const base = baselineRoot(commit);
  try {
    const before = await run(`baseline ${commit}`, base.root);
    print(`baseline ${commit} (before the CPU pool)`, before);
    console.log('\nhealthz p99, baseline / this checkout:');
    for (const [i, r] of current.entries()) console.log(`  ${r.attack.padEnd(42)} ${fmt(pct(before[i].health, 99) / pct(r.health, 99), 1)}x`);
  } finally {
    base.remove();
  }
}
console.log('\nlate: no answer, or an answer after the budget (waiting for a thread + the deadline + 3 s of slack).');
console.log('other: any status but 2xx, 4xx and 503 with Retry-After (a 5xx, a 503 without Retry-After).');

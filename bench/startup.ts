// Start-up: from spawning the service (as `npm start` runs it) to the first 200 on /readyz, the CPU
// it used until then, and its resident memory after start and after 200 order creates:
// embedded on a fresh data dir, the same dir started again, PostgreSQL on a fresh database
// (migrations run), and a web replica (SOUK_ROLE=web) on a database already migrated, the start
// autoscaling waits on. BENCH_RUNS starts of each (default 3), medians printed; on two shared
// cores a single start says little.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agent, fmt, freshDatabase, machine, send, startChild, userAndStore } from './lib.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);

interface Start {
  startMs: number;
  cpuMs: number;
  rssStart: number;
  rssAfter: number;
}

async function once(databaseUrl: string | null, env: Record<string, string>, dataDir: string | undefined, orders: boolean): Promise<Start> {
  const svc = await startChild(databaseUrl, env, dataDir, '/readyz');
  try {
    const rssStart = svc.rssMiB();
    if (orders) {
      const { token, storeId } = await userAndStore(svc.url);
      const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
      const body = JSON.stringify({ customerName: 'Start Buyer', items: [{ name: 'Tea', price: 350 }] });
      for (let i = 0; i < 200; i += 8) await Promise.all(Array.from({ length: 8 }, () => send(svc.port, 'POST', `/v1/stores/${storeId}/orders`, headers, body)));
    }
    return { startMs: svc.startMs, cpuMs: svc.startCpuMs, rssStart, rssAfter: orders ? svc.rssMiB() : NaN };
  } finally {
    await svc.stop();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const dir = mkdtempSync(join(tmpdir(), 'souk-startup-'));
const migrated = await freshDatabase('startup');
const rows: Array<{ name: string; starts: Start[] }> = [];
try {
  console.log(`souk bench:startup  ${machine()}, ${RUNS} starts each`);
  // Interleaved rounds: a neighbour's burst lands on every kind of start alike.
  const kinds = ['embedded, first start', 'embedded, second start', 'PostgreSQL, fresh database', 'PostgreSQL web replica, migrated'];
  for (const name of kinds) rows.push({ name, starts: [] });
  await once(migrated.url, {}, undefined, false);
  for (let run = 0; run < RUNS; run++) {
    const data = join(dir, `data-${run}`);
    const fresh = await freshDatabase('startup');
    try {
      rows[0].starts.push(await once(null, {}, data, run === 0));
      rows[1].starts.push(await once(null, {}, data, false));
      rows[2].starts.push(await once(fresh.url, {}, undefined, run === 0));
      rows[3].starts.push(await once(migrated.url, { SOUK_ROLE: 'web' }, undefined, run === 0));
    } finally {
      await fresh.drop();
    }
  }
  console.log('');
  // CPU to /readyz: what the start costs the service's process, which a loaded machine stretches less than the wall time.
  console.log(`${'start (median)'.padEnd(34)}${'to /readyz ms'.padStart(14)}${'min-max'.padStart(14)}${'CPU ms'.padStart(8)}${'RSS MiB'.padStart(9)}${'after 200 orders'.padStart(18)}`);
  for (const r of rows) {
    const ms = r.starts.map((s) => s.startMs);
    const range = `${fmt(Math.min(...ms))}-${fmt(Math.max(...ms))}`;
    console.log(`${r.name.padEnd(34)}${fmt(median(ms)).padStart(14)}${range.padStart(14)}${fmt(median(r.starts.map((s) => s.cpuMs))).padStart(8)}${fmt(median(r.starts.map((s) => s.rssStart))).padStart(9)}${fmt(r.starts[0].rssAfter).padStart(18)}`);
  }
  console.log(`load after the run: ${machine()}`);
} finally {
  agent.destroy();
  rmSync(dir, { recursive: true, force: true });
  await migrated.drop();
}

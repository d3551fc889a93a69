// Start-up: from spawning the service (as `npm start` runs it) to the first 200 on /healthz, and
// its resident memory after start and after 200 order creates; embedded on a fresh data dir, the
// same dir started again, and PostgreSQL on a fresh database. Prints the table with ratios.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agent, fmt, freshDatabase, machine, send, startChild, userAndStore } from './lib.js';

interface Row {
  name: string;
  startMs: number;
  cpuMs: number;
  rssStart: number;
  rssAfter: number;
}

async function measure(name: string, databaseUrl: string | null, dataDir?: string): Promise<Row> {
  const svc = await startChild(databaseUrl, {}, dataDir);
  try {
    const rssStart = svc.rssMiB();
    const { token, storeId } = await userAndStore(svc.url);
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    const body = JSON.stringify({ customerName: 'Start Buyer', items: [{ name: 'Tea', price: 350 }] });
    for (let i = 0; i < 200; i += 8) {
      await Promise.all(Array.from({ length: 8 }, () => send(svc.port, 'POST', `/v1/stores/${storeId}/orders`, headers, body)));
    }
    return { name, startMs: svc.startMs, cpuMs: svc.startCpuMs, rssStart, rssAfter: svc.rssMiB() };
  } finally {
    await svc.stop();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'souk-startup-'));
const db = await freshDatabase('startup');
try {
  const rows = [
    await measure('embedded, first start', null, join(dir, 'data')),
    await measure('embedded, second start', null, join(dir, 'data')),
    await measure('PostgreSQL, fresh database', db.url),
  ];
  console.log(`souk bench:startup  ${machine()}`);
  console.log('');
  // CPU to /healthz: what the start costs the service's process, which a loaded machine stretches less than the wall time.
  console.log(`${'start'.padEnd(30)}${'to /healthz ms'.padStart(15)}${'CPU ms'.padStart(8)}${'RSS MiB'.padStart(9)}${'after 200 orders'.padStart(18)}`);
  for (const r of rows) console.log(`${r.name.padEnd(30)}${fmt(r.startMs).padStart(15)}${fmt(r.cpuMs).padStart(8)}${fmt(r.rssStart).padStart(9)}${fmt(r.rssAfter).padStart(18)}`);
  console.log('');
  console.log(`embedded first start / PostgreSQL: time ${fmt(rows[0].startMs / rows[2].startMs, 2)}, RSS ${fmt(rows[0].rssStart / rows[2].rssStart, 2)}`);
} finally {
  agent.destroy();
  rmSync(dir, { recursive: true, force: true });
  await db.drop();
}

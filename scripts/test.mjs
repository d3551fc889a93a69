// Runs every test file with node's test runner: against DATABASE_URL when it is set,
// otherwise each file starts its own embedded PGlite. Webhook tests need an HTTPS receiver
// the service trusts: a throwaway certificate is made here and handed to Node through
// NODE_EXTRA_CA_CERTS, which Node reads only at process start.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';

const files = readdirSync('test')
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => join('test', f))
  .sort();
// Options (--test-name-pattern=…) go before the files, where node's runner reads them.
const options = process.argv.slice(2).filter((a) => a.startsWith('--'));
const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));

const dir = mkdtempSync(join(tmpdir(), 'souk-tls-'));
const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
  keySize: 2048,
  algorithm: 'sha256',
  extensions: [
    { name: 'basicConstraints', cA: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] },
  ],
});
writeFileSync(join(dir, 'cert.pem'), pems.cert);
writeFileSync(join(dir, 'key.pem'), pems.private, { mode: 0o600 });

console.log(`souk tests: ${(only.length ? only : files).length} files against ${process.env.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : 'embedded PGlite'}`);
const res = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', `--test-concurrency=${process.env.SOUK_TEST_CONCURRENCY ?? 2}`, '--test-reporter=spec',
    // A test that hangs fails with its name instead of holding the run until CI's deadline, and a
    // file whose tests are done ends even if a handle leaked (test/lifecycle.test.ts checks that a
    // service's close releases its own).
    `--test-timeout=${process.env.SOUK_TEST_TIMEOUT_MS ?? 600_000}`,
    '--test-force-exit', ...options, ...(only.length ? only : files)],
  {
    stdio: 'inherit',
    env: {
      ...process.env,
      NODE_ENV: 'test',
      NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem'),
      SOUK_TEST_TLS_CERT: join(dir, 'cert.pem'),
      SOUK_TEST_TLS_KEY: join(dir, 'key.pem'),
    },
  },
);
rmSync(dir, { recursive: true, force: true });
process.exit(res.status ?? 1);

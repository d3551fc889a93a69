// Lints the OpenAPI document that GET /v1/openapi.json serves with Redocly's recommended
// ruleset. `npm run openapi:lint` starts the service on a throwaway embedded database;
// test/openapi.test.ts reuses lintOpenApi() on the document of its own service.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  pointer: string;
}

export interface LintResult {
  errors: number;
  warnings: number;
  problems: LintProblem[];
}

const CLI = fileURLToPath(new URL('../node_modules/@redocly/cli/bin/cli.js', import.meta.url));
const LINT_TIMEOUT_MS = 60_000;

/** Runs `redocly lint --format=json` on the document; rejects when the linter itself fails. */
export async function lintOpenApi(document: unknown): Promise<LintResult> {
  const dir = mkdtempSync(join(tmpdir(), 'souk-openapi-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document, null, 2));
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, 'lint', '--format=json', '--max-problems=1000', file], {
        cwd: dir,
        // No telemetry and no update check: the linter must not reach the network.
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true' },
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: LINT_TIMEOUT_MS,
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (err += d));
      child.on('error', reject);
      child.on('close', (c) => resolve({ code: c, stdout: out, stderr: err }));
    });
    let report: { totals?: { errors: number; warnings: number }; problems?: Array<{ ruleId: string; severity: string; message: string; location?: Array<{ pointer?: string }> }> };
    try {
      report = JSON.parse(stdout);
    } catch {
      throw new Error(`redocly lint printed no JSON report (exit ${code}): ${stderr.slice(-2000)}`);
    }
    if (!report.totals || !Array.isArray(report.problems)) throw new Error(`unexpected redocly report: ${stdout.slice(0, 500)}`);
    return {
      errors: report.totals.errors,
      warnings: report.totals.warnings,
      problems: report.problems.map((p) => ({
        ruleId: p.ruleId,
        severity: p.severity === 'error' ? 'error' : 'warn',
        message: p.message,
        pointer: p.location?.[0]?.pointer ?? '',
      })),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const formatProblems = (problems: LintProblem[]) => problems.map((p) => `${p.severity} ${p.ruleId} at ${p.pointer}: ${p.message}`).join('\n');

async function main() {
  const { loadConfig } = await import('../src/config.js');
  const { startService } = await import('../src/service.js');
  const dataDir = mkdtempSync(join(tmpdir(), 'souk-openapi-data-'));
  // Always a throwaway embedded database: linting must never migrate a real one.
  const config = loadConfig({ NODE_ENV: 'test', SOUK_DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const service = await startService(config, { listen: false });
  let result: LintResult;
  try {
    const res = await service.app.inject({ method: 'GET', url: '/v1/openapi.json' });
    if (res.statusCode !== 200) throw new Error(`GET /v1/openapi.json answered ${res.statusCode}`);
    result = await lintOpenApi(res.json());
  } finally {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  if (result.problems.length) console.log(formatProblems(result.problems));
  console.log(`openapi lint: ${result.errors} errors, ${result.warnings} warnings`);
  process.exit(result.errors ? 1 : 0);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error('openapi lint failed:', err instanceof Error ? err.message : err);
    process.exit(1);
  });
}

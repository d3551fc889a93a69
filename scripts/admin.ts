// Platform administration from the shell: `npm run admin -- COMMAND ...` (`npm run admin` lists them).
// A running service (same SOUK_DATA_DIR) answers on its admin socket, so this works while the
// server runs, embedded database included; otherwise the database is opened here, with the same
// configuration as `npm start`, and the same code runs.
import 'reflect-metadata';
import { connect } from 'node:net';
import { ConfigError, loadConfig } from '../src/config.js';
import { ADMIN_USAGE, adminSocketPath, runAdminCommand, type AdminResult } from '../src/server/admin.js';
import { printableLine } from '../src/core/input.js';

/** The running service's answer, or null when none listens on the data dir's admin socket. */
function viaSocket(path: string, argv: string[]): Promise<AdminResult | null> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify({ argv })}\n`));
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('end', () => {
      try {
        resolve(JSON.parse(answer) as AdminResult);
      } catch {
        reject(new Error('the running service gave no answer'));
      }
    });
    socket.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ENOENT' || err.code === 'ECONNREFUSED' ? resolve(null) : reject(err)));
  });
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (!argv.length) {
    console.error(ADMIN_USAGE);
    return 2;
  }
  const config = loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' });
  let result = await viaSocket(adminSocketPath(config.dataDir), argv);
  if (!result) {
    const { startService } = await import('../src/service.js');
    const service = await startService(config, { listen: false, modules: [] });
    try {
      result = await runAdminCommand(service.deps, argv);
    } finally {
      await service.close();
    }
  }
  // What the database holds (store names, emails) is printed escaped: a name cannot drive the terminal.
  for (const line of result.lines.map(printableLine)) (result.code ? console.error : console.log)(result.code === 2 ? line : `${result.code ? 'souk admin: ' : ''}${line}`);
  return result.code;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`souk admin: ${err instanceof ConfigError ? err.message : err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);

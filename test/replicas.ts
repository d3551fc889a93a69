import { spawn, type ChildProcess } from 'node:child_process';

/** A service process of a multi-process test: its URL, its output so far, and whether it still runs. */
export interface Replica {
  name: string;
  url: string;
  proc: ChildProcess;
  output: string[];
  alive: boolean;
}

/**
 * Starts the service in a child process with `env` over this one's, and resolves once it
 * listens. As `npm start` runs it (`bundle`: scripts/start.mjs) or from the sources under tsx; no
 * npm or npx in between, so a signal reaches the service itself. `started` sees the replica as
 * soon as it is spawned, so a caller can kill it even when it never comes up.
 */
export async function spawnReplica(
  name: string,
  env: NodeJS.ProcessEnv,
  opts: { bundle?: boolean; timeoutMs?: number; started?: (r: Replica) => void } = {},
): Promise<Replica> {
  const full: NodeJS.ProcessEnv = { ...process.env, HOST: '127.0.0.1', PORT: '0', NODE_ENV: 'test', ...env };
  // The test runner marks its own children; a server is not one of them.
  delete full.NODE_TEST_CONTEXT;
  const args = opts.bundle ? ['scripts/start.mjs'] : ['--import', 'tsx', 'src/main.ts'];
  const proc = spawn(process.execPath, args, { env: full, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const replica: Replica = { name, url: '', proc, output, alive: true };
  proc.on('exit', () => (replica.alive = false));
  opts.started?.(replica);
  replica.url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`replica ${name} did not start: ${output.join('')}`)), opts.timeoutMs ?? 90_000);
    proc.stdout!.on('data', (chunk: Buffer) => {
      output.push(chunk.toString());
      const m = /souk listening on (http:\/\/\S+)/.exec(output.join(''));
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    proc.stderr!.on('data', (c: Buffer) => output.push(c.toString()));
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`replica ${name} exited with ${code}: ${output.join('')}`));
    });
  });
  return replica;
}

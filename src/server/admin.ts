import { createServer, type Server, type Socket } from 'node:net';
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Deps } from '../core/context.js';
import type { Module } from '../core/module.js';
import { User } from '../domains/auth/user.entity.js';
import { AuthToken } from '../domains/auth/token.entity.js';
import { hashPassword, issueToken, normalizeEmail } from '../domains/auth/auth.service.js';
import { isNameText, NAME_TEXT_MESSAGE } from '../core/input.js';

/**
 * Platform administration from the shell (`npm run admin`). The commands run inside the service:
 * a running process answers them on a unix socket in its data dir (only the data dir's owner can
 * open it), so they work while the server runs, embedded database included; with no server
 * running, the CLI opens the database itself and runs the same code.
 */
export const ADMIN_USAGE = `usage: npm run admin -- COMMAND
  create-user EMAIL NAME [--password P] [--admin]   a verified account (a password is made if none is given)
  reset-password EMAIL [--password P]               set a new password; every token of the user is revoked
  create-token EMAIL [--name N]                     a session token for the user (printed once)
  list-stores [EMAIL]                               every store (or a user's), with owner and member count
  promote EMAIL | demote EMAIL                      make or unmake a platform administrator`;

export interface AdminResult {
  code: number;
  lines: string[];
}

const fail = (line: string): AdminResult => ({ code: 1, lines: [line] });
const usage = (): AdminResult => ({ code: 2, lines: ADMIN_USAGE.split('\n') });

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args[i + 1];
}

export async function runAdminCommand(deps: Deps, argv: string[]): Promise<AdminResult> {
  const [command, ...args] = argv;
  const positional = args.filter((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--password') && !args[i - 1]?.startsWith('--name'));
  const em = deps.orm.em.fork() as unknown as EntityManager;
  const userOf = async (email: string | undefined) => (email ? em.findOne(User, { email: normalizeEmail(email) }) : null);
  switch (command) {
    case 'create-user': {
      const [email, name] = positional;
      if (!email || !name) return usage();
      if (!isNameText(name)) return fail(`the name ${NAME_TEXT_MESSAGE}`);
      if (await userOf(email)) return fail(`an account with the email ${email} exists`);
      const password = option(args, '--password') ?? randomBytes(12).toString('base64url');
      if (password.length < 8) return fail('the password needs 8 characters or more');
      const user = em.create(User, { email: normalizeEmail(email), name, passwordHash: await hashPassword(password), emailVerifiedAt: new Date(), platformRole: args.includes('--admin') ? 'admin' : 'user' });
      await em.flush();
      return { code: 0, lines: [`created ${user.email} (${user.id}, ${user.platformRole})`, ...(option(args, '--password') ? [] : [`password: ${password}`])] };
    }
    case 'reset-password': {
      const user = await userOf(positional[0]);
      if (!user) return positional[0] ? fail(`no account with the email ${positional[0]}`) : usage();
      const password = option(args, '--password') ?? randomBytes(12).toString('base64url');
      if (password.length < 8) return fail('the password needs 8 characters or more');
      const revoked = await em.transactional(async (tx) => {
        const u = await tx.findOneOrFail(User, { id: user.id });
        u.passwordHash = await hashPassword(password);
        return tx.nativeUpdate(AuthToken, { userId: user.id, revokedAt: null }, { revokedAt: new Date() });
      });
      return { code: 0, lines: [`new password set for ${user.email}; ${revoked} token(s) revoked`, ...(option(args, '--password') ? [] : [`password: ${password}`])] };
    }
    case 'create-token': {
      const user = await userOf(positional[0]);
      if (!user) return positional[0] ? fail(`no account with the email ${positional[0]}`) : usage();
      const ctx = { em, deps } as unknown as Parameters<typeof issueToken>[0];
      const { token } = issueToken(ctx, user.id, { name: option(args, '--name') ?? 'admin CLI' });
      await em.flush();
      return { code: 0, lines: [token] };
    }
    case 'list-stores': {
      const user = positional[0] ? await userOf(positional[0]) : null;
      if (positional[0] && !user) return fail(`no account with the email ${positional[0]}`);
      const rows = await em.getConnection().execute<Array<{ id: string; name: string; currency: string; owner: string | null; members: number; created_at: Date }>>(
        `select s.id, s.name, s.currency, s.created_at,
           (select u.email from store_members m join users u on u.id = m.user_id where m.store_id = s.id and m.role = 'owner' order by m.created_at limit 1) as owner,
           (select count(*)::int from store_members m where m.store_id = s.id) as members
         from stores s ${user ? 'where exists (select 1 from store_members m where m.store_id = s.id and m.user_id = ?)' : ''}
         order by s.created_at desc limit 500`,
        user ? [user.id] : [],
      );
      if (!rows.length) return { code: 0, lines: ['no stores'] };
      return { code: 0, lines: rows.map((r) => `${r.id}  ${r.name}  ${r.currency}  owner ${r.owner ?? '—'}  ${r.members} member(s)  ${new Date(r.created_at).toISOString()}`) };
    }
    case 'promote':
    case 'demote': {
      const user = await userOf(positional[0]);
      if (!user) return positional[0] ? fail(`no account with the email ${positional[0]}`) : usage();
      return em.transactional(async (tx) => {
        const u = await tx.findOneOrFail(User, { id: user.id });
        if (command === 'demote' && u.platformRole === 'admin' && (await tx.count(User, { platformRole: 'admin', id: { $ne: u.id } })) === 0) {
          return fail('this is the last admin; promote someone else first');
        }
        u.platformRole = command === 'promote' ? 'admin' : 'user';
        return { code: 0, lines: [`${u.email} is now ${u.platformRole}`] };
      });
    }
    default:
      return usage();
  }
}

export const adminSocketPath = (dataDir: string) => join(dataDir, 'admin.sock');

/** An admin request is one short line; a longer one is refused, not buffered. */
const MAX_REQUEST_BYTES = 64 * 1024;
const BAD_REQUEST = 'souk admin: the request must be one line of JSON, {"argv": ["COMMAND", ...]}, with an array of strings';

/** The command line a request names, or null for anything but `{"argv": [strings]}`. */
export function parseAdminRequest(line: string): string[] | null {
  let request: unknown;
  try {
    request = JSON.parse(line);
  } catch {
    return null;
  }
  if (!request || typeof request !== 'object' || Array.isArray(request)) return null;
  const argv = (request as { argv?: unknown }).argv;
  return Array.isArray(argv) && argv.every((a) => typeof a === 'string') ? argv : null;
}

/** Its answer; a command that fails answers its error, never leaves the process. */
async function answer(deps: Deps, line: string): Promise<AdminResult> {
  const argv = parseAdminRequest(line);
  if (!argv) return { code: 2, lines: [BAD_REQUEST, ...usage().lines] };
  let result: AdminResult;
  try {
    result = await runAdminCommand(deps, argv);
  } catch (err) {
    result = fail(err instanceof Error ? err.message : String(err));
  }
  deps.log.info({ command: argv[0], code: result.code }, 'admin command');
  return result;
}

/**
 * The running service's end of `npm run admin`: one JSON request line per connection (what
 * follows it is ignored), one JSON answer, then the connection closes.
 */
export const adminModule: Module = {
  name: 'admin-socket',
  start: async (deps) => {
    const path = adminSocketPath(deps.config.dataDir);
    // Unix socket paths are limited to ~107 bytes; the CLI then opens the database itself.
    if (path.length > 100) return;
    mkdirSync(deps.config.dataDir, { recursive: true });
    rmSync(path, { force: true });
    const open = new Set<Socket>();
    const server: Server = createServer((socket) => {
      open.add(socket);
      socket.once('close', () => open.delete(socket));
      let input = '';
      socket.setEncoding('utf8');
      const reply = (result: AdminResult) => {
        if (socket.destroyed) return;
        socket.end(`${JSON.stringify(result)}\n`);
        // Read (and drop) what else comes, so the peer's end is seen and the socket closes:
        // a paused socket never closes, and the server's close would wait for it forever.
        socket.resume();
      };
      const onData = (chunk: string) => {
        input += chunk;
        const end = input.indexOf('\n');
        if (end === -1 && input.length <= MAX_REQUEST_BYTES) return;
        socket.off('data', onData);
        socket.pause();
        if (end === -1 || end > MAX_REQUEST_BYTES) return reply({ code: 2, lines: [`souk admin: the request is longer than ${MAX_REQUEST_BYTES} bytes`] });
        answer(deps, input.slice(0, end)).then(reply, (err: unknown) => {
          deps.log.error({ err }, 'admin command: no answer');
          reply(fail('the command failed'));
        });
      };
      socket.on('data', onData);
      socket.on('error', () => {});
    });
    try {
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(path, () => resolve()));
    } catch (err) {
      // A read-only or foreign data dir costs the CLI its shortcut, not the service its start.
      deps.log.warn({ err, path }, 'admin socket unavailable; `npm run admin` opens the database itself');
      return;
    }
    chmodSync(path, 0o600);
    return async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // A command still running when the service stops gets no answer: its client sees the close.
      for (const socket of open) socket.destroy();
      await closed;
      rmSync(path, { force: true });
    };
  },
};

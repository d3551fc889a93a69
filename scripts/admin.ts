// Platform administration from the shell: `npm run admin -- promote EMAIL` (or `demote EMAIL`).
// Uses the same configuration as `npm start`; with the embedded database, stop the server
// first (the data dir takes one process at a time).
import 'reflect-metadata';
import { ConfigError, loadConfig } from '../src/config.js';
import { initOrm, openDatabase } from '../src/db/orm.js';
import { ENTITIES } from '../src/domains/entities.js';
import { User } from '../src/domains/auth/user.entity.js';
import { normalizeEmail } from '../src/domains/auth/auth.service.js';

const USAGE = 'usage: npm run admin -- promote|demote EMAIL';

async function main(): Promise<number> {
  const [command, email] = process.argv.slice(2);
  if ((command !== 'promote' && command !== 'demote') || !email) {
    console.error(USAGE);
    return 2;
  }
  const config = loadConfig();
  const target = await openDatabase(config);
  try {
    const orm = await initOrm(target, ENTITIES);
    try {
      const em = orm.em.fork();
      return await em.transactional(async (tx) => {
        const user = await tx.findOne(User, { email: normalizeEmail(email) });
        if (!user) {
          console.error(`souk admin: no account with the email ${email}`);
          return 1;
        }
        if (command === 'demote' && user.platformRole === 'admin' && (await tx.count(User, { platformRole: 'admin', id: { $ne: user.id } })) === 0) {
          console.error('souk admin: this is the last admin; promote someone else first');
          return 1;
        }
        user.platformRole = command === 'promote' ? 'admin' : 'user';
        await tx.flush();
        console.log(`souk admin: ${user.email} is now ${user.platformRole}`);
        return 0;
      });
    } finally {
      await orm.close(true);
    }
  } finally {
    await target.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`souk admin: ${err instanceof ConfigError ? err.message : err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);

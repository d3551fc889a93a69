import { defineConfig } from '@mikro-orm/postgresql';
import { ormOptions, serverTarget } from './src/db/orm.js';
import { ENTITIES } from './src/domains/entities.js';

/** For the MikroORM CLI against DATABASE_URL (the service itself configures the ORM in src/db/orm.ts). */
export default defineConfig(
  ormOptions(serverTarget(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'), ENTITIES),
);

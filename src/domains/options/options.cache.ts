import type { Deps } from '../../core/context.js';
import type { Module } from '../../core/module.js';
import { listenChannel } from '../../db/listen.js';

/** The PostgreSQL channel that tells every replica "the options are now at version N". */
export const OPTIONS_CHANNEL = 'souk_options';

export interface OptionEntry {
  key: string;
  value: unknown;
  public: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** This process's copy of the platform options, refreshed whenever any replica writes them. */
export interface OptionsCache {
  readonly version: number;
  /** Sorted by key. */
  all(): OptionEntry[];
  get(key: string): OptionEntry | undefined;
  /** Reads the table again (a snapshot never replaces a newer one). */
  refresh(): Promise<void>;
  close(): Promise<void>;
}

interface SnapshotRow {
  version: string | number;
  key: string | null;
  value: unknown;
  public: boolean | null;
  created_at: Date | string | null;
  updated_at: Date | string | null;
}


export async function startOptionsCache(deps: Deps): Promise<OptionsCache> {
  let version = 0;
  let entries = new Map<string, OptionEntry>();
  let closed = false;

  /** One statement, one snapshot: the version and the rows it stands for. */
  async function load(): Promise<void> {
    const rows = await deps.orm.em.getConnection().execute<SnapshotRow[]>(
      `select v.version, o.key, o.value, o.public, o.created_at, o.updated_at
         from platform_options_version v left join platform_options o on true order by o.key`,
    );
    const loaded = Number(rows[0]?.version ?? 0);
    if (loaded < version) return;
    const next = new Map<string, OptionEntry>();
    for (const r of rows) {
      if (r.key === null) continue;
      next.set(r.key, { key: r.key, value: r.value ?? null, public: !!r.public, createdAt: new Date(r.created_at!), updatedAt: new Date(r.updated_at!) });
    }
    version = loaded;
    entries = next;
  }

  // Reloads run one at a time; a request during one runs once more after it.
  let running: Promise<void> | null = null;
  let again = false;
  function refresh(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await load();
        } while (again && !closed);
      } finally {
        running = null;
      }
    })();
    return running;
  }

  await load();
  const listener = deps.embedded ? null : await listenChannel(deps, OPTIONS_CHANNEL, 'options', (payload) => {
    if (payload === null || Number(payload) > version) void refresh().catch((err) => deps.log.error({ err: (err as Error).message }, 'options: reload failed'));
  });

  return {
    get version() {
      return version;
    },
    all: () => [...entries.values()],
    get: (key) => entries.get(key),
    // A call during a reload makes that reload read once more: a write's own commit is always seen.
    refresh,
    async close() {
      closed = true;
      await listener?.close();
    },
  };
}

/** Each running service's cache, kept by the options module. */
const caches = new WeakMap<Deps, OptionsCache>();

export const getOptions = (deps: Deps): OptionsCache => {
  const cache = caches.get(deps);
  if (!cache) throw new Error('the options module is not in this service');
  return cache;
};

export const optionsModule: Module = {
  name: 'options',
  start: async (deps) => {
    const cache = await startOptionsCache(deps);
    caches.set(deps, cache);
    return async () => {
      caches.delete(deps);
      await cache.close();
    };
  },
};

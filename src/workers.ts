import type { Deps } from './server/context.js';

/** Background work started after the database and stopped before it closes. */
export type Worker = (deps: Deps) => Promise<() => Promise<void>>;
const workers: Worker[] = [];
export const registerWorker = (w: Worker) => workers.push(w);

export async function startWorkers(deps: Deps): Promise<() => Promise<void>> {
  const stops: Array<() => Promise<void>> = [];
  try {
    for (const w of workers) stops.push(await w(deps));
  } catch (err) {
    for (const s of stops.reverse()) await s().catch(() => {});
    throw err;
  }
  return async () => {
    for (const s of stops.reverse()) await s();
  };
}

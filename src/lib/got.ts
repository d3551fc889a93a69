/**
 * got, imported on first use rather than at start: with its dependencies it is a tenth of the
 * service's start-up, and a process may run a long time before it sends anything.
 */
let loading: Promise<typeof import('got')> | undefined;
export const loadGot = (): Promise<typeof import('got')> => (loading ??= import('got'));

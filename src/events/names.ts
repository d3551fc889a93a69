import { invalid } from '../core/errors.js';
import { graphqlEnum } from '../core/enums.js';

export const EVENT_NAMES = ['orderCreated', 'orderUpdated', 'orderDeleted', 'productCreated', 'productUpdated', 'productDeleted'] as const;
export type EventName = (typeof EVENT_NAMES)[number];

/**
 * Events the realtime channel carries besides the six (CONTRACT-2 §9): only to subscribers that
 * name them in `events`, never to webhooks.
 */
export const REALTIME_ONLY_EVENTS = ['purchaseOrderUpdated', 'aiGenerationUpdated'] as const;
export type RealtimeOnlyEvent = (typeof REALTIME_ONLY_EVENTS)[number];

export const WebhookEvent = graphqlEnum('WebhookEvent', EVENT_NAMES, 'The six events webhooks receive, by canonical name.');
export const StoreEventName = graphqlEnum('StoreEventName', [...EVENT_NAMES, ...REALTIME_ONLY_EVENTS], 'Events the realtime channel carries: the six webhook events and the realtime-only ones.');

const squash = (s: string) => s.replace(/[._\-\s]/g, '').toLowerCase();
const BY_SQUASHED = new Map(EVENT_NAMES.map((n) => [squash(n), n]));
const STREAM_BY_SQUASHED = new Map<string, string>([...EVENT_NAMES, ...REALTIME_ONLY_EVENTS].map((n) => [squash(n), n]));

/** Legacy spellings (`order.created`, `ORDER_CREATED`, `product-updated`) match ignoring case and separators. */
export function normalizeEvent(name: string): EventName | null {
  return BY_SQUASHED.get(squash(name)) ?? null;
}

export function normalizeEvents(names: readonly string[], path = 'events'): EventName[] {
  const out: EventName[] = [];
  names.forEach((name, i) => {
    const canonical = normalizeEvent(name);
    if (!canonical) throw invalid(`${path}.${i}`, `unknown event; expected one of ${EVENT_NAMES.join(', ')}`);
    if (!out.includes(canonical)) out.push(canonical);
  });
  return out;
}

/** A realtime filter: the six webhook events and the realtime-only ones, legacy spellings accepted. */
export function normalizeStreamEvents(names: readonly string[], path = 'events'): string[] {
  const out: string[] = [];
  names.forEach((name, i) => {
    const canonical = STREAM_BY_SQUASHED.get(squash(name));
    if (!canonical) throw invalid(`${path}.${i}`, `unknown event; expected one of ${[...EVENT_NAMES, ...REALTIME_ONLY_EVENTS].join(', ')}`);
    if (!out.includes(canonical)) out.push(canonical);
  });
  return out;
}

export const entityOf = (event: EventName): 'order' | 'product' => (event.startsWith('order') ? 'order' : 'product');
export const isUpdated = (event: EventName) => event.endsWith('Updated');

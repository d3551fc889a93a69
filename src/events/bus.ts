import { EventEmitter } from 'node:events';

/** A committed store event as subscribers see it. */
export interface CommittedEvent {
  storeId: string;
  seq: number;
  event: string;
  timestamp: string;
  data: Record<string, unknown>;
}

/** In-process fan-out of committed events to realtime subscribers. */
export const eventBus = new EventEmitter<{ event: [CommittedEvent] }>();
eventBus.setMaxListeners(0);

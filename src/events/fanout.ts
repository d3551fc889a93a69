import type { ServerResponse } from 'node:http';
import type { Deps } from '../core/context.js';
import { AccessWatch, type Watched } from './access.js';

/**
 * Unsent bytes beyond which a live reader that does not keep up is cut off, so that it never
 * slows the others nor holds memory without bound; it resumes from the last event it received.
 */
export const MAX_UNSENT_BYTES = 1024 * 1024;
/** Live frames held while a reader's backlog is sent; a store busier than this makes the reader resume. */
const MAX_HELD = 10_000;

/** How an SSE dialect keeps a stream alive and ends it. */
export interface SinkKind {
  /** A comment sent every heartbeat interval. */
  readonly ping: Buffer;
  /** Sent before the server ends the stream (its source completed, access is gone); a cut sends nothing. */
  readonly bye: Buffer | null;
}

/** Store events as `GET .../events/stream` sends them. */
export const EVENT_STREAM: SinkKind = { ping: Buffer.from(': ping\n\n'), bye: null };
/** graphql-sse's distinct-connections protocol: a `complete` event ends the operation. */
export const GRAPHQL_SSE: SinkKind = { ping: Buffer.from(':\n\n'), bye: Buffer.from('event: complete\ndata:\n\n') };

/**
 * Starts a reader's response. The body runs until the connection closes, without chunked
 * framing: every frame is then one socket write of the shared bytes, where chunked encoding makes
 * each a gathered write of three buffers and a deferred uncork per reader.
 */
export function startEventStream(res: ServerResponse, headers: Record<string, string>): void {
  res.useChunkedEncodingByDefault = false;
  res.writeHead(200, headers);
  // Node keeps the head it built, line by line, as a tree of concatenated strings for as long as
  // the response lives (~1 KiB per open stream); `| 0` makes V8 flatten it in place.
  const head = (res as unknown as { _header?: unknown })._header;
  if (typeof head === 'string') void ((head as unknown as number) | 0);
}

/** One serialized event, shared by every reader it is sent to; `seq` orders it within its store. */
export interface Frame {
  readonly seq: number;
  readonly bytes: Buffer;
}

/** What a group is fed by and how its readers' access is decided. */
export interface GroupSource {
  /** Whether the holder of `authorization` may still read this group. */
  allows(authorization: string | undefined): Promise<{ expiresAt: number | null } | null>;
  /** Stops feeding (the last reader left). */
  stop(): void;
}

const SINK = Symbol('souk.sink');

/** The one 'close' listener of every reader's response: `this` is the response. */
function onResponseClose(this: ServerResponse & { [SINK]?: Sink }): void {
  this[SINK]?.leave();
}

/**
 * One reader: an open SSE response and what it needs to be fed, re-checked and resumed. Its
 * methods live on the prototype, so a reader costs one small object, not a set of closures.
 */
export class Sink implements Watched {
  group: Group | null = null;
  /** Sequence number of the last ordered frame sent: a reader resumes after it. */
  last = 0;
  /** Ordered frames held while the reader's backlog is sent; null once it is live. */
  held: Frame[] | null = null;
  /** Its heartbeat slot (see SharedStreams). */
  slot = 0;

  constructor(
    readonly res: ServerResponse,
    readonly kind: SinkKind,
    /** The Authorization header it opened with: access is re-checked with it. */
    readonly authorization: string | undefined,
    readonly userId: string | null,
    public expiresAt: number | null,
  ) {}

  get checkKey(): string {
    return `${this.group?.key}\n${this.authorization}`;
  }

  check(): Promise<{ expiresAt: number | null } | null> {
    return this.group ? this.group.source.allows(this.authorization) : Promise.resolve(null);
  }

  revoke(): void {
    this.end();
  }

  /** An ordered frame: held during the backlog; sent once, in order, after `last`. */
  offer(frame: Frame): boolean {
    if (this.held) {
      if (this.held.push(frame) > MAX_HELD) this.res.destroy();
      return true;
    }
    if (frame.seq <= this.last) return false;
    this.last = frame.seq;
    this.write(frame.bytes);
    return true;
  }

  /** Writes whole frames only; a live reader past the limit is cut off. */
  write(bytes: Buffer): void {
    const res = this.res;
    if (res.destroyed || res.writableEnded) return;
    res.write(bytes);
    if (this.held === null && res.writableLength > MAX_UNSENT_BYTES) res.destroy();
  }

  /** The server ends the stream (its source completed, access is gone). */
  end(): void {
    const res = this.res;
    if (res.destroyed || res.writableEnded) return;
    if (this.kind.bye) res.write(this.kind.bye);
    res.end();
  }

  /** Leaves its group when the response closes, whoever closed it. */
  leave(): void {
    this.group?.remove(this);
  }
}

/**
 * Readers that get the same frames: one source, one serialization per event, one write per
 * reader. Groups are keyed by what makes the frames equal (the store and the filter of an event
 * stream; a GraphQL document, its variables and the caller's view).
 */
export class Group {
  readonly sinks = new Set<Sink>();
  source!: GroupSource;
  /** Set once the source runs; false: it could not start. */
  ready: Promise<boolean>;
  private joining = 0;

  constructor(
    readonly streams: SharedStreams,
    readonly key: string,
    open: (group: Group) => GroupSource | null | Promise<GroupSource | null>,
  ) {
    this.ready = Promise.resolve()
      .then(() => open(this))
      .then((source) => {
        if (!source) return false;
        this.source = source;
        return true;
      })
      .catch((err: unknown) => {
        streams.log.error({ err }, 'realtime: a shared stream failed to start');
        return false;
      })
      .then((ok) => {
        if (!ok) streams.drop(this);
        return ok;
      });
  }

  /** Adds a reader once the source runs; false when it could not start (the caller answers alone). */
  async join(sink: Sink): Promise<boolean> {
    this.joining++;
    try {
      if (!(await this.ready)) return false;
    } finally {
      this.joining--;
    }
    const res = sink.res as ServerResponse & { [SINK]?: Sink };
    if (res.destroyed) {
      this.stopIfIdle();
      return true;
    }
    sink.group = this;
    this.sinks.add(sink);
    res[SINK] = sink;
    res.on('close', onResponseClose);
    this.streams.added(sink);
    return true;
  }

  remove(sink: Sink): void {
    if (!this.sinks.delete(sink)) return;
    sink.res.off('close', onResponseClose);
    this.streams.removed(sink);
    this.stopIfIdle();
  }

  private stopIfIdle(): void {
    if (this.sinks.size || this.joining || !this.source) return;
    this.streams.drop(this);
    this.source.stop();
  }

  /** An ordered frame to every reader (those still reading their backlog hold it). */
  publish(frame: Frame): void {
    for (const s of this.sinks) s.offer(frame);
  }

  /** Bytes to every reader. */
  broadcast(bytes: Buffer): void {
    for (const s of this.sinks) s.write(bytes);
  }

  /** The source ended: so does every reader's stream. */
  end(): void {
    this.streams.drop(this);
    for (const s of [...this.sinks]) s.end();
  }
}

/** Heartbeat slots: each tick pings one, so the pings of many readers are spread over the interval. */
const SLOTS = 10;

/**
 * This process's shared streams: the groups, one heartbeat timer for every reader, and the
 * access watch. Readers cost no timer and no query while they are open.
 */
export class SharedStreams {
  private readonly groups = new Map<string, Group>();
  private readonly slots = Array.from({ length: SLOTS }, () => new Set<Sink>());
  private nextSlot = 0;
  private tickSlot = 0;
  private timer: NodeJS.Timeout | null = null;
  private unwatch: (() => void) | null = null;
  private counted = 0;
  readonly access = new AccessWatch();

  constructor(readonly log: Deps['log']) {}

  /** Open readers: stream and subscription clients of this process. */
  get size(): number {
    return this.counted;
  }

  /** Groups: what this process executes and serializes once per event. */
  get groupCount(): number {
    return this.groups.size;
  }

  /** The group for `key`, opened with `open` when there is none. */
  group(key: string, open: (group: Group) => GroupSource | null | Promise<GroupSource | null>): Group {
    let g = this.groups.get(key);
    if (!g) this.groups.set(key, (g = new Group(this, key, open)));
    return g;
  }

  drop(group: Group): void {
    if (this.groups.get(group.key) === group) this.groups.delete(group.key);
  }

  added(sink: Sink): void {
    this.counted++;
    sink.slot = this.nextSlot++ % SLOTS;
    this.slots[sink.slot].add(sink);
    this.access.add(sink);
  }

  removed(sink: Sink): void {
    this.counted--;
    this.slots[sink.slot].delete(sink);
    this.access.remove(sink);
  }

  /** Counts a reader served outside the groups (graphql-sse's own subscriptions); returns how to uncount it. */
  track(): () => void {
    this.counted++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.counted--;
    };
  }

  start(deps: Deps): void {
    const every = Math.max(1, Math.floor(deps.config.sseHeartbeatMs / SLOTS));
    this.timer = setInterval(() => this.tick(), every);
    this.timer.unref();
    this.unwatch = deps.authCache.watch((userId) => this.access.changed(userId));
  }

  private tick(): void {
    const slot = this.slots[this.tickSlot];
    this.tickSlot = (this.tickSlot + 1) % SLOTS;
    for (const s of slot) s.write(s.kind.ping);
    this.access.tick(Date.now());
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.unwatch?.();
    this.unwatch = null;
    for (const g of [...this.groups.values()]) {
      this.groups.delete(g.key);
      for (const s of [...g.sinks]) s.res.destroy();
    }
  }
}

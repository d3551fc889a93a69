import { AppError, invalid } from '../../core/errors.js';

/**
 * The report's time window, read from the query: `from` (inclusive) and `to` (exclusive) as an
 * ISO date (midnight in `tz`) or date-time, an `interval` and an IANA `tz`. Local times are
 * turned into instants by PostgreSQL in the same statement that counts, so the time-zone rules
 * that place the buckets are the ones that place the bounds; this module only reads local
 * calendars (instant → wall clock, through Intl) to check the window and count its buckets.
 */

export const INTERVALS = ['day', 'week', 'month'] as const;
export type Interval = (typeof INTERVALS)[number];
export const MAX_BUCKETS = 400;
/** The default window: this many days, ending with today in `tz`. */
export const DEFAULT_DAYS = 8;

/** A bound as SQL receives it: an instant (`timestamptz`) or a wall-clock time in `tz` (`timestamp`). */
export type Bound = { instant: string; local: null } | { instant: null; local: string };

export interface LorRange {
  from: Bound;
  to: Bound;
  interval: Interval;
  tz: string;
  /** How many buckets the window holds (1..MAX_BUCKETS). */
  buckets: number;
}

export interface RangeArgs {
  from?: string | null;
  to?: string | null;
  interval?: string | null;
  tz?: string | null;
}

const DAY_MS = 86_400_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

/** An IANA zone name this runtime knows (`UTC`, `Europe/Paris`, `Africa/Algiers`, ...). */
export function isTimeZone(tz: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/.test(tz) || tz.length > 64) return false;
  try {
    wallClock(0, tz);
    return true;
  } catch {
    return false;
  }
}

/** The wall-clock time of an instant in `tz`, as a naive UTC millisecond count. */
function wallClock(ms: number, tz: string): number {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      fractionalSecondDigits: 3,
    });
    formatters.set(tz, f);
  }
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(ms)) if (part.type !== 'literal' && part.type !== 'era') p[part.type] = Number(part.value);
  const d = new Date(0);
  d.setUTCFullYear(p.year, p.month - 1, p.day);
  d.setUTCHours(p.hour, p.minute, p.second, p.fractionalSecond ?? 0);
  return d.getTime();
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,6})?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

/** Naive UTC milliseconds of calendar fields, or null when they name no real date or time. */
function naive(y: number, mo: number, d: number, h = 0, mi = 0, s = 0, frac = 0): number | null {
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return null;
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  if (date.getUTCMonth() !== mo - 1) return null;
  date.setUTCHours(h, mi, s, Math.floor(frac * 1000));
  return date.getTime();
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** A naive wall-clock value as PostgreSQL's `timestamp` literal. */
function localLiteral(ms: number): string {
  const d = new Date(ms);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}`;
}

interface Parsed {
  bound: Bound;
  /** The wall clock in `tz` (naive ms), for calendar checks. */
  wall: number;
  /** The instant, when the value carried an offset. */
  instant: number | null;
}

/**
 * A date is midnight in `tz`; a date-time with `Z` or an offset is that instant; one without
 * is a wall-clock time in `tz`. A `+` offset sent unencoded in a query string arrives as a
 * space, and is read as `+`.
 */
function parseBound(raw: string, tz: string, path: string): Parsed {
  const value = raw.trim().replace(/ (\d{2}(?::?\d{2})?)$/, '+$1');
  const bad = () => invalid(path, 'must be an ISO 8601 date (YYYY-MM-DD) or date-time');
  let m = DATE.exec(value);
  if (m) {
    const wall = naive(+m[1], +m[2], +m[3]);
    if (wall === null) throw bad();
    return { bound: { instant: null, local: localLiteral(wall) }, wall, instant: null };
  }
  m = DATE_TIME.exec(value);
  if (!m) throw bad();
  const wall = naive(+m[1], +m[2], +m[3], +m[4], +m[5], +(m[6] ?? 0), m[7] ? Number(m[7]) : 0);
  if (wall === null) throw bad();
  if (!m[8]) return { bound: { instant: null, local: localLiteral(wall) }, wall, instant: null };
  let offsetMin = 0;
  if (!/^z$/i.test(m[8])) {
    const o = /^([+-])(\d{2}):?(\d{2})?$/.exec(m[8])!;
    const hours = +o[2];
    const minutes = +(o[3] ?? 0);
    if (hours > 23 || minutes > 59) throw bad();
    offsetMin = (o[1] === '-' ? -1 : 1) * (hours * 60 + minutes);
  }
  const instant = wall - offsetMin * 60_000;
  const iso = new Date(instant);
  if (Number.isNaN(iso.getTime()) || iso.getUTCFullYear() < 1 || iso.getUTCFullYear() > 9999) throw bad();
  const fraction = m[7] ?? '';
  // Microseconds survive: the instant goes to SQL as written, in UTC.
  const text = `${localLiteral(instant).slice(0, 19)}${fraction}Z`;
  return { bound: { instant: text, local: null }, wall: wallClock(instant, tz), instant };
}

/** The start of the calendar bucket (day, ISO week from Monday, month) holding a wall-clock time. */
export function bucketStart(wall: number, interval: Interval): number {
  const d = new Date(Math.floor(wall / DAY_MS) * DAY_MS);
  if (interval === 'week') d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
  if (interval === 'month') d.setUTCDate(1);
  return d.getTime();
}

/** How many buckets start before `to`: the first is the one holding `from`. */
function countBuckets(fromWall: number, toWall: number, interval: Interval): number {
  const first = bucketStart(fromWall, interval);
  if (interval === 'month') {
    const a = new Date(first);
    const b = new Date(bucketStart(toWall, 'month'));
    const months = (b.getUTCFullYear() - a.getUTCFullYear()) * 12 + (b.getUTCMonth() - a.getUTCMonth());
    return months + (toWall > b.getTime() ? 1 : 0);
  }
  const step = interval === 'week' ? 7 * DAY_MS : DAY_MS;
  return Math.ceil((toWall - first) / step);
}

/** Reads and checks the window; every refusal is a 400 at the parameter's path (`prefix` + name). */
export function parseRange(args: RangeArgs, prefix = ''): LorRange {
  const at = (name: string) => `${prefix}${name}`;
  const tz = args.tz ?? 'UTC';
  if (!isTimeZone(tz)) throw invalid(at('tz'), 'must be an IANA time zone name, e.g. Europe/Paris');
  const interval = (args.interval ?? 'day') as Interval;
  if (!INTERVALS.includes(interval)) throw invalid(at('interval'), `must be one of ${INTERVALS.join(', ')}`);

  const from = args.from != null ? parseBound(args.from, tz, at('from')) : null;
  const to = args.to != null ? parseBound(args.to, tz, at('to')) : null;
  const localDays = (wall: number): Parsed => ({ bound: { instant: null, local: localLiteral(wall) }, wall, instant: null });
  const finish = to ?? localDays(bucketStart(wallClock(Date.now(), tz), 'day') + DAY_MS);
  const start = from ?? localDays(finish.wall - DEFAULT_DAYS * DAY_MS);

  const ordered = start.instant !== null && finish.instant !== null ? start.instant < finish.instant : start.wall < finish.wall;
  if (!ordered) {
    if (to) throw invalid(at('to'), 'must be after from');
    throw invalid(at('from'), 'must be before the end of today (the default to)');
  }
  const buckets = countBuckets(start.wall, finish.wall, interval);
  if (buckets > MAX_BUCKETS) {
    const message = `the window holds ${buckets} ${interval} buckets; at most ${MAX_BUCKETS}`;
    throw new AppError('VALIDATION_FAILED', `${at('from')}..${at('to')}: ${message}`, [
      { path: at('from'), message },
      { path: at('to'), message },
    ]);
  }
  return { from: start.bound, to: finish.bound, interval, tz, buckets: Math.max(1, buckets) };
}

import { invalid } from '../core/errors.js';

/** ISO 8601 / RFC 3339: a date, or a date-time with optional seconds, fraction and offset. */
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+-]\d{2}:?\d{2})?)?$/;

const leap = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
const daysIn = (year: number, month: number) => (month === 2 ? (leap(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31);

/**
 * A query-string instant: years 1..9999 only (what PostgreSQL and ISO 8601 without expanded
 * years agree on), real calendar days, UTC when no offset is given; a date alone is its
 * midnight UTC. Anything else is a 400 at `path`, never a value the database refuses later.
 */
export function parseInstant(value: string, path: string): Date {
  const m = INSTANT.exec(value.trim());
  const bad = () => invalid(path, 'must be an ISO 8601 date or date-time with a year from 0001 to 9999');
  if (!m) throw bad();
  const [year, month, day, hour = 0, minute = 0, second = 0] = m.slice(1, 7).map((p) => (p === undefined ? undefined : Number(p))) as number[];
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59) throw bad();
  const ms = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, second, ms));
  // Date.UTC reads years 0..99 as 1900..1999: set the real year afterwards.
  date.setUTCFullYear(year);
  const offset = m[8];
  if (offset && offset.toUpperCase() !== 'Z') {
    const [, sign, hh, mm] = /^([+-])(\d{2}):?(\d{2})$/.exec(offset)!;
    if (Number(hh) > 23 || Number(mm) > 59) throw bad();
    date.setTime(date.getTime() - (sign === '-' ? -1 : 1) * (Number(hh) * 60 + Number(mm)) * 60_000);
  }
  return date;
}

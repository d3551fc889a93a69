import { BigIntType } from '@mikro-orm/core';
import { AppError } from './errors.js';

/**
 * Money: integer minor units inside (bigint columns, safe JS integers in code), JSON numbers in
 * major units at the edges. Every conversion, check and sum goes through this module.
 */

export const DEFAULT_CURRENCY = 'DZD';
/** Amounts above this (in major units) are refused: they stay exact as doubles and as minor units. */
const MAX_MAJOR = 1e12;

const exponents = new Map<string, number>();
let known: Set<string> | null = null;

/** ISO 4217 codes this runtime knows. */
export function isCurrency(code: unknown): code is string {
  if (typeof code !== 'string' || !/^[A-Z]{3}$/.test(code)) return false;
  known ??= new Set(Intl.supportedValuesOf('currency'));
  return known.has(code);
}

/** Digits after the decimal point: 2 for DZD and EUR, 0 for JPY, 3 for KWD. */
export function exponent(currency: string): number {
  let e = exponents.get(currency);
  if (e === undefined) {
    e = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    exponents.set(currency, e);
  }
  return e;
}

function decimalDigits(n: number): { int: string; frac: string } {
  let s = Math.abs(n).toString();
  if (/e/i.test(s)) s = Math.abs(n).toFixed(20).replace(/0+$/, '').replace(/\.$/, '');
  const [int, frac = ''] = s.split('.');
  return { int, frac };
}

const moneyError = (path: string, message: string) => new AppError('VALIDATION_FAILED', `${path}: ${message}`, [{ path, message }]);

/**
 * Major units (as the client wrote them) to minor units, exactly: the number's shortest decimal
 * form is read digit by digit, so 19.99 is 1999 and 0.1 + 0.2 never happens.
 */
export function toMinor(major: number, currency: string, path: string, opts: { allowNegative?: boolean } = {}): number {
  if (typeof major !== 'number' || !Number.isFinite(major)) throw moneyError(path, 'must be a number');
  if (major < 0 && !opts.allowNegative) throw moneyError(path, 'must be 0 or more');
  if (Math.abs(major) > MAX_MAJOR) throw moneyError(path, `must be at most ${MAX_MAJOR}`);
  const e = exponent(currency);
  const { int, frac } = decimalDigits(major);
  if (frac.length > e) throw moneyError(path, e === 0 ? `${currency} amounts have no decimals` : `${currency} amounts have at most ${e} decimals`);
  const minor = Number(int + frac.padEnd(e, '0'));
  return major < 0 ? -minor : minor;
}

/** Minor units (number, bigint or the driver's string) to the major-unit JSON number. */
export function toMajor(minor: number | bigint | string, currency: string): number {
  const n = typeof minor === 'number' ? minor : Number(minor);
  const e = exponent(currency);
  if (e === 0) return n;
  const sign = n < 0 ? '-' : '';
  const digits = String(Math.abs(n)).padStart(e + 1, '0');
  return Number(`${sign}${digits.slice(0, -e)}.${digits.slice(-e)}`);
}

/**
 * A provider's decimal text ("19.99") to minor units of the currency, rounded half away from
 * zero where it carries more decimals than the currency has; null when it is not a decimal.
 */
export function decimalTextToMinor(text: string, currency: string): number | null {
  const m = /^(-?)(\d{1,15})(?:\.(\d{1,20}))?$/.exec(text.trim());
  if (!m) return null;
  const e = exponent(currency);
  const frac = (m[3] ?? '').padEnd(e + 1, '0');
  const minor = Number(m[2] + frac.slice(0, e)) + (Number(frac[e]) >= 5 ? 1 : 0);
  return m[1] ? -minor : minor;
}

/** An exact sum of minor amounts; refuses to leave the safe-integer range. */
export function sumMinor(values: Iterable<number>): number {
  let total = 0;
  for (const v of values) {
    total += v;
    if (!Number.isSafeInteger(total)) throw new AppError('VALIDATION_FAILED', 'The amount is too large', [{ path: '', message: 'amount too large' }]);
  }
  return total;
}

/** quantity × unit price, exact. */
export function lineMinor(unitMinor: number, quantity: number): number {
  const v = unitMinor * quantity;
  if (!Number.isSafeInteger(v)) throw new AppError('VALIDATION_FAILED', 'The amount is too large', [{ path: '', message: 'amount too large' }]);
  return v;
}

/** A percentage of an amount, rounded half away from zero to the minor unit. */
export function percentOf(minor: number, percent: number): number {
  return Math.round((minor * percent) / 100);
}

/** Display text, e.g. "1 234,50 DZD" in the given locale. */
export function formatMoney(minor: number, currency: string, locale = 'en'): string {
  return new Intl.NumberFormat(locale, { style: 'currency', currency }).format(toMajor(minor, currency));
}

/** Column type for amounts: PostgreSQL bigint, read as a JS number (amounts stay below 2^53). */
export const moneyColumn = () => new BigIntType('number');

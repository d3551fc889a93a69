import { invalid } from '../../core/errors.js';
import { toMajor, toMinor } from '../../core/money.js';
import { DELIVERY_TYPES, type DeliveryType, type PriceTable, type StateRates } from './shipping.entity.js';

const COUNTRY = /^[A-Z]{2}$/;
const STATE = /^[A-Za-z0-9-]{1,10}$/;
/** Every Algerian commune fits many times over; a bound keeps one row reasonable. */
const MAX_STATES = 5000;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A client's table (major units) checked and turned into minor units of `currency`. */
export function parsePriceTable(input: unknown, currency: string, path = 'prices'): PriceTable {
  if (!isObject(input)) throw invalid(path, 'must be an object of countries');
  const table: PriceTable = {};
  let states = 0;
  for (const [country, byState] of Object.entries(input)) {
    const cPath = `${path}.${country}`;
    if (!COUNTRY.test(country)) throw invalid(cPath, 'must be an ISO 3166-1 alpha-2 country code (e.g. DZ)');
    if (!isObject(byState)) throw invalid(cPath, 'must be an object of state codes');
    const out: Record<string, StateRates> = {};
    for (const [state, rates] of Object.entries(byState)) {
      const sPath = `${cPath}.${state}`;
      if (!STATE.test(state)) throw invalid(sPath, 'must be a state code of letters, digits and dashes (e.g. "16")');
      if (++states > MAX_STATES) throw invalid(path, `must hold at most ${MAX_STATES} states`);
      if (!isObject(rates)) throw invalid(sPath, 'must be an object {home, desk, pickup}');
      const r: StateRates = {};
      for (const [type, amount] of Object.entries(rates)) {
        if (!(DELIVERY_TYPES as readonly string[]).includes(type)) throw invalid(`${sPath}.${type}`, 'is not a delivery type (home, desk, pickup)');
        if (amount === null) continue;
        if (typeof amount !== 'number') throw invalid(`${sPath}.${type}`, 'must be a number or null');
        r[type as DeliveryType] = toMinor(amount, currency, `${sPath}.${type}`);
      }
      out[state] = r;
    }
    table[country] = out;
  }
  return table;
}

/** The stored table in major units, every delivery type spelled out (null = not delivered). */
export function priceTableView(table: PriceTable, currency: string): Record<string, Record<string, Record<DeliveryType, number | null>>> {
  const out: Record<string, Record<string, Record<DeliveryType, number | null>>> = {};
  for (const [country, byState] of Object.entries(table)) {
    out[country] = {};
    for (const [state, rates] of Object.entries(byState)) {
      const r = {} as Record<DeliveryType, number | null>;
      for (const t of DELIVERY_TYPES) r[t] = rates[t] === undefined || rates[t] === null ? null : toMajor(rates[t]!, currency);
      out[country][state] = r;
    }
  }
  return out;
}

/** `1` and `01` name the same wilaya: numeric codes compare without their leading zeros. */
const sameState = (a: string, b: string) => a === b || (/^\d+$/.test(a) && /^\d+$/.test(b) && Number(a) === Number(b));

/** The rate in minor units, or null when the table does not deliver there that way. */
export function lookupRate(table: PriceTable, country: string, state: string | null, type: DeliveryType): number | null {
  const byState = table[country.toUpperCase()];
  if (!byState || state === null) return null;
  const key = Object.keys(byState).find((k) => sameState(k, state));
  if (key === undefined) return null;
  return byState[key][type] ?? null;
}

export function checkDeliveryType(type: string, path: string): DeliveryType {
  if (!(DELIVERY_TYPES as readonly string[]).includes(type)) throw invalid(path, `must be one of ${DELIVERY_TYPES.join(', ')}`);
  return type as DeliveryType;
}

export function checkCountry(country: string, path: string): string {
  if (!/^[A-Za-z]{2}$/.test(country)) throw invalid(path, 'must be an ISO 3166-1 alpha-2 code');
  return country.toUpperCase();
}

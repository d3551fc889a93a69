import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../../core/errors.js';
import { PROJECT_ROOT } from '../../lib/paths.js';

export interface GeoState {
  code: string;
  name: string;
  nameAr: string;
}

export interface GeoCity {
  name: string;
  nameAr: string;
  postalCode: string | null;
}

interface CountryData {
  states: readonly GeoState[];
  cities: ReadonlyMap<string, readonly GeoCity[]>;
}

/**
 * Countries whose administrative division we serve, each from a file that
 * scripts/geo-data.mjs generates from a maintained public dataset (data/SOURCE.md).
 */
const FILES: Record<string, string> = { DZ: 'dz.json' };
const loaded = new Map<string, CountryData>();

/** Read once, on first use: the answers are shared, never copied per call. */
function countryData(country: string): CountryData | null {
  const key = country.toUpperCase();
  const file = FILES[key];
  if (!file) return null;
  let data = loaded.get(key);
  if (!data) {
    let raw: { [country: string]: Array<GeoState & { cities: GeoCity[] }> };
    try {
      raw = JSON.parse(readFileSync(join(PROJECT_ROOT, 'src', 'domains', 'geo', 'data', file), 'utf8'));
    } catch {
      throw new AppError('NOT_CONFIGURED', `The geo data of ${key} is not installed on this server (scripts/geo-data.mjs generates it)`);
    }
    const list = raw[key];
    data = {
      states: Object.freeze(list.map((s) => Object.freeze({ code: s.code, name: s.name, nameAr: s.nameAr }))),
      cities: new Map(list.map((s) => [s.code, Object.freeze(s.cities.map((c) => Object.freeze({ name: c.name, nameAr: c.nameAr, postalCode: c.postalCode })))])),
    };
    loaded.set(key, data);
  }
  return data;
}

/** The country's states (Algeria: the 69 wilayas of the 2025 division, "01"…"69"); null for a country we do not serve. */
export function geoStates(country: string): Array<{ code: string; name: string; nameAr: string }> | null {
  return (countryData(country)?.states as GeoState[] | undefined) ?? null;
}

/** A state's cities (Algeria: a wilaya's communes); null for an unknown country or state. */
export function geoCities(country: string, stateCode: string): Array<{ name: string; nameAr: string; postalCode: string | null }> | null {
  return (countryData(country)?.cities.get(stateCode) as GeoCity[] | undefined) ?? null;
}

export function isStateCode(country: string, code: string): boolean {
  return countryData(country)?.cities.has(code) ?? false;
}

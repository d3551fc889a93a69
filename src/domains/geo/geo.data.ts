import { existsSync, readFileSync } from 'node:fs';
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

/**
 * Where a generated file may be: SOUK_GEO_DATA_DIR, then beside this module, then the
 * directory a deployment shares with its steering repository. The dataset is installed,
 * not committed: its text comes from outside this repository.
 */
function dataPath(file: string): string | null {
  const dirs = [
    process.env.SOUK_GEO_DATA_DIR,
    join(PROJECT_ROOT, 'src', 'domains', 'geo', 'data'),
    join(PROJECT_ROOT, '..', 'shared', 'data', 'geo'),
  ];
  for (const dir of dirs) if (dir && existsSync(join(dir, file))) return join(dir, file);
  return null;
}
const loaded = new Map<string, CountryData>();

const absentUntil = new Map<string, number>();
const notInstalled = (country: string) =>
  new AppError('NOT_CONFIGURED', `The geo data of ${country} is not installed on this server (scripts/geo-data.mjs generates it; SOUK_GEO_DATA_DIR says where it is)`);

/** Read once, on first use: the answers are shared, never copied per call. */
function countryData(country: string): CountryData | null {
  const data = installedData(country);
  if (data === ABSENT) throw notInstalled(country.toUpperCase());
  return data;
}

const ABSENT = Symbol('absent');

/** The country's data, null for a country we do not serve, ABSENT when its file is not installed (no throw: callers may fall back). */
function installedData(country: string): CountryData | null | typeof ABSENT {
  const key = country.toUpperCase();
  const file = FILES[key];
  if (!file) return null;
  let data = loaded.get(key);
  if (!data) {
    let raw: { [country: string]: Array<GeoState & { cities: GeoCity[] }> };
    // Looking for an absent file costs three stat calls: ask the disk again each minute.
    const missing = absentUntil.get(key);
    if (missing && missing > Date.now()) return ABSENT;
    const path = dataPath(file);
    if (!path) {
      absentUntil.set(key, Date.now() + 60_000);
      return ABSENT;
    }
    try {
      raw = JSON.parse(readFileSync(path, 'utf8'));
    } catch {
      return ABSENT;
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

/** State codes of a country, known without its dataset: Algeria's wilayas are numbered 01 to 69 by law. */
const STATE_CODES: Record<string, RegExp> = { DZ: /^(0[1-9]|[1-5][0-9]|6[0-9])$/ };

/** Whether a code names a state; shipping checks it even where the dataset is not installed. */
export function isStateCode(country: string, code: string): boolean {
  const data = installedData(country);
  if (data !== ABSENT) return data?.cities.has(code) ?? false;
  const pattern = STATE_CODES[country.toUpperCase()];
  if (!pattern) throw notInstalled(country.toUpperCase());
  return pattern.test(code);
}

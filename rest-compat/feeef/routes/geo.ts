import { AppError, invalid } from '../../../src/core/errors.js';
import { envelope, pageArgs } from '../pages.js';
import { PAGE_PARAMS, type Call, type FeeefRoute } from '../route.js';
import { anyObj, int, nstr, num, obj, pageOf, str } from '../schema.js';

/**
 * Feeef's states, cities and currencies, anonymous (CONTRACT-3 §17.8): states and cities are
 * Souk's geo lists (`geoStates`, `geoCities`: the 69 wilayas and their communes), currencies the
 * platform's public configuration. Read-only: Souk keeps no editable geo registry.
 */

type Row = Record<string, any>;

const STATES = 'query($country: String!) { geoStates(country: $country) { code name nameAr } }';
const CITIES = 'query($country: String!, $state: String!) { geoCities(country: $country, state: $state) { name nameAr postalCode } }';
const CURRENCIES = 'query { configs { currencies { code name precision symbol } } }';

const country = (code: string) => {
  if (!/^[A-Za-z]{2}$/.test(code)) throw invalid('countryCode', 'must be an ISO 3166-1 alpha-2 code');
  return code.toUpperCase();
};

const toState = (countryCode: string) => (s: Row) => ({ countryCode, code: s.code, name: s.name, metadata: {}, locales: { ar: s.nameAr }, createdAt: null });
const toCity = (countryCode: string, stateCode: string) => (c: Row) => ({
  countryCode,
  stateCode,
  name: c.name,
  metadata: { postalCode: c.postalCode },
  locales: { ar: c.nameAr },
  createdAt: null,
});

const stateSchema = obj({ countryCode: str, code: str, name: str, metadata: anyObj, createdAt: nstr });
const citySchema = obj({ countryCode: str, stateCode: str, name: str, metadata: anyObj, createdAt: nstr });
const currencySchema = obj({ code: str, name: str, symbol: str, decimals: int, rate: num, metadata: anyObj, createdAt: nstr });

const statesOf = (call: Call, code: string): Promise<Row[]> => call.run({ country: code }, { operation: STATES });
const citiesOf = (call: Call, code: string, state: string): Promise<Row[]> => call.run({ country: code, state }, { operation: CITIES });

async function stateOf(call: Call, code: string, stateCode: string): Promise<Row> {
  const state = (await statesOf(call, code)).find((s) => s.code === stateCode);
  if (!state) throw new AppError('NOT_FOUND', 'No such state');
  return state;
}

/** The store currency first: the platform's list is ordered by code, stores mostly sell in DZD. */
async function currencies(call: Call): Promise<Row[]> {
  const list = ((await call.run({}, { operation: CURRENCIES })).currencies as Row[]).map((c) => ({
    code: c.code,
    name: c.name,
    symbol: c.symbol,
    decimals: c.precision,
    rate: 1,
    metadata: {},
    createdAt: null,
  }));
  return [...list.filter((c) => c.code === 'DZD'), ...list.filter((c) => c.code !== 'DZD')];
}

const GEO = 'Anonymous; 503 NOT_CONFIGURED where the server has no geo data installed';

export const routes: FeeefRoute[] = [
  {
    method: 'GET',
    path: '/countries/{countryCode}/states',
    summary: `A country's states (DZ: the 69 wilayas of 2025, Arabic names in locales.ar). ${GEO}`,
    operation: STATES,
    errors: [503],
    query: PAGE_PARAMS,
    response: pageOf(stateSchema),
    handle: async (call) => {
      const code = country(call.params.countryCode);
      return envelope(pageArgs(call.query), await statesOf(call, code), true, { map: toState(code) });
    },
  },
  {
    method: 'GET',
    path: '/countries/{countryCode}/states/{stateCode}',
    summary: `A state by its code ("16"); unknown → 404. ${GEO}`,
    operation: STATES,
    errors: [503],
    response: stateSchema,
    handle: async (call) => {
      const code = country(call.params.countryCode);
      return toState(code)(await stateOf(call, code, call.params.stateCode));
    },
  },
  {
    method: 'GET',
    path: '/countries/{countryCode}/states/{stateCode}/cities',
    summary: `A state's cities (DZ: a wilaya's communes, the postal code in metadata.postalCode); unknown state → 404. ${GEO}`,
    operation: CITIES,
    errors: [503],
    query: PAGE_PARAMS,
    response: pageOf(citySchema),
    handle: async (call) => {
      const code = country(call.params.countryCode);
      const { stateCode } = call.params;
      return envelope(pageArgs(call.query), await citiesOf(call, code, stateCode), true, { map: toCity(code, stateCode) });
    },
  },
  {
    method: 'GET',
    path: '/states',
    summary: `States of country_code (DZ when omitted). ${GEO}`,
    operation: STATES,
    errors: [503],
    query: { ...PAGE_PARAMS, country_code: { type: 'string' } },
    response: pageOf(stateSchema),
    handle: async (call) => {
      const code = country(call.query.string('country_code') ?? 'DZ');
      return envelope(pageArgs(call.query), await statesOf(call, code), true, { map: toState(code) });
    },
  },
  {
    method: 'GET',
    path: '/cities',
    summary: `Cities of state_code (required) in country_code (DZ when omitted). ${GEO}`,
    operation: CITIES,
    errors: [503],
    query: { ...PAGE_PARAMS, country_code: { type: 'string' }, state_code: { type: 'string' } },
    response: pageOf(citySchema),
    handle: async (call) => {
      const code = country(call.query.string('country_code') ?? 'DZ');
      const state = call.query.string('state_code');
      if (!state) throw invalid('state_code', 'is required: cities are listed per state');
      return envelope(pageArgs(call.query), await citiesOf(call, code, state), true, { map: toCity(code, state) });
    },
  },
  {
    method: 'GET',
    path: '/currencies',
    summary: 'Currencies stores may sell in (the platform configuration), DZD first; rate is 1: Souk converts no amounts. Anonymous',
    operation: CURRENCIES,
    query: PAGE_PARAMS,
    response: pageOf(currencySchema),
    handle: async (call) => envelope(pageArgs(call.query), await currencies(call), true, { map: (c) => c }),
  },
  {
    method: 'GET',
    path: '/currencies/{id}',
    summary: 'A currency by its ISO 4217 code; unknown → 404. Anonymous',
    operation: CURRENCIES,
    response: currencySchema,
    handle: async (call) => {
      const found = (await currencies(call)).find((c) => c.code === call.params.id.toUpperCase());
      if (!found) throw new AppError('NOT_FOUND', 'No such currency');
      return found;
    },
  },
];

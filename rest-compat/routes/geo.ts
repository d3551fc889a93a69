import { CACHE, dataEnvelope, group, route } from '../route.js';

const base = '/v1/geo/countries/{country}/states';

/** Public, not per store (CONTRACT-3 §17.3): cacheable for a day, open to every origin. */
export default group('geo', [
  route({
    method: 'GET',
    path: base,
    summary: "A country's states: DZ, the 69 wilayas of the 2025 division ({code, name, nameAr}, codes 01 to 69)",
    operation: 'query($country: String!) { geoStates(country: $country) { code name nameAr } }',
    ...dataEnvelope,
    etag: true,
    cacheControl: CACHE.geo,
   
  }),
  route({
    method: 'GET',
    path: `${base}/{code}/cities`,
    summary: "A state's cities: a wilaya's communes ({name, nameAr, postalCode}; postalCode null where none is known)",
    operation: 'query($country: String!, $code: String!) { geoCities(country: $country, state: $code) { name nameAr postalCode } }',
    ...dataEnvelope,
    etag: true,
    cacheControl: CACHE.geo,
   
  }),
]);

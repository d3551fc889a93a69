// Regenerates src/domains/geo/data/dz.json, Algeria's wilayas and communes, from the GeoAlgeria
// dataset (the `geoalgeria` package of github.com/yasserstudio/geoalgeria, directory
// packages/dataset; MIT). Usage: node scripts/geo-data.mjs <that packages/dataset directory>
// It keeps what the geo routes answer (codes, French and Arabic names, postal codes), checks the
// shape of the 2025 division (69 wilayas coded 01 to 69, 1,541 communes, every name present) and
// copies the dataset's licence beside the output. SOURCE.md there says which release it was.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const OUT_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'domains', 'geo', 'data');
const WILAYAS = 69;
const COMMUNES = 1541;

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node scripts/geo-data.mjs <geoalgeria checkout>/packages/dataset');
  process.exit(2);
}
const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
if (pkg.name !== 'geoalgeria') throw new Error(`${dir} is not the geoalgeria dataset package (package.json names ${pkg.name})`);
const wilayas = JSON.parse(readFileSync(join(dir, 'data', 'algeria.json'), 'utf8'));

const text = (v, what) => {
  if (typeof v !== 'string' || !v.trim()) throw new Error(`${what}: missing`);
  return v.trim().replace(/\s+/g, ' ');
};
const postal = (v, what) => {
  if (v === null || v === undefined || v === '') return null;
  if (!/^\d{5}$/.test(String(v))) throw new Error(`${what}: postal code ${v} is not five digits`);
  return String(v);
};
const collator = new Intl.Collator('fr', { sensitivity: 'base' });

const states = wilayas
  .map((w) => {
    const code = String(w.code).padStart(2, '0');
    const cities = w.communes.map((c, i) => ({
      name: text(c.name_fr, `wilaya ${code} commune ${i} name_fr`),
      nameAr: text(c.name_ar, `wilaya ${code} commune ${i} name_ar`),
      postalCode: postal(c.postal_code, `wilaya ${code} commune ${c.name_fr}`),
    }));
    if (!cities.length) throw new Error(`wilaya ${code} has no commune`);
    cities.sort((a, b) => collator.compare(a.name, b.name) || a.name.localeCompare(b.name));
    return { code, name: text(w.name_fr, `wilaya ${code} name_fr`), nameAr: text(w.name_ar, `wilaya ${code} name_ar`), cities };
  })
  .sort((a, b) => a.code.localeCompare(b.code));

const codes = states.map((s) => s.code).join(',');
const expected = Array.from({ length: WILAYAS }, (_, i) => String(i + 1).padStart(2, '0')).join(',');
if (codes !== expected) throw new Error(`the wilaya codes are not 01..${WILAYAS}: ${codes}`);
const communes = states.reduce((n, s) => n + s.cities.length, 0);
if (communes !== COMMUNES) throw new Error(`${communes} communes, expected ${COMMUNES}`);

const out = { source: { dataset: pkg.name, version: pkg.version, license: pkg.license }, DZ: states };
writeFileSync(join(OUT_DIR, 'dz.json'), JSON.stringify(out) + '\n');
copyFileSync(join(dir, 'LICENSE'), join(OUT_DIR, 'LICENSE.geoalgeria'));
const missing = states.reduce((n, s) => n + s.cities.filter((c) => c.postalCode === null).length, 0);
console.log(`dz.json: ${states.length} wilayas, ${communes} communes (${missing} without a postal code), from ${pkg.name} ${pkg.version}`);

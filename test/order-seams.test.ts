// The order domain is the one writer of orders (docs/orders.md, "Seams"): code outside
// src/domains/orders/ reaches orders through the order API and the hooks it declares, never
// through the entity, the change path or SQL that writes the table. A static check of the tree.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

const ROOTS = ['src', 'rest-compat'];
const ORDERS = join('src', 'domains', 'orders') + sep;
/** Names that belong to the order domain's inside. */
const INTERNAL = ['Order', 'OrderStatus', 'changeOrder', 'setStatus', 'moveAllowed', 'lockOrder'];

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return files(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Each import or re-export of the file: the names it takes and the module it takes them from. */
function imports(text: string): Array<{ names: string[]; from: string }> {
  const out: Array<{ names: string[]; from: string }> = [];
  for (const m of text.matchAll(/(?:import|export)\s+(?:type\s+)?([^'";]*?)\s+from\s+['"]([^'"]+)['"]/gs)) {
    const clause = m[1];
    const names = [...clause.matchAll(/(?:^|[{,\s])(?:type\s+)?([A-Za-z_$][\w$]*)(?:\s+as\s+[\w$]+)?(?=\s*(?:[,}]|$))/g)].map((n) => n[1]);
    out.push({ names, from: m[2] });
  }
  return out;
}

/** Whether a path (relative import specifier) from `file` lands inside the order domain. */
const intoOrders = (file: string, spec: string) => spec.startsWith('.') && join(file, '..', spec).startsWith(ORDERS);

/** The ORM's entity list registers every entity class; registering is not using. */
const isEntityList = (file: string) => file.endsWith(`${sep}entities.ts`);

const outside = ROOTS.flatMap((r) => files(r)).filter((f) => !f.startsWith(ORDERS));

describe('the order domain is the one writer of orders', () => {
  test('the scan sees the tree (it finds the order API in use)', () => {
    const users = outside.filter((f) => imports(readFileSync(f, 'utf8')).some((i) => intoOrders(f, i.from)));
    assert.ok(users.length >= 5, `only ${users.length} files import from the order domain`);
    // The check itself catches a use: this very line, as a file outside orders/ would write it.
    const sample = "import { Order, type OrderStatus } from '../orders/order.entity.js';";
    assert.deepEqual(imports(sample)[0].names, ['Order', 'OrderStatus']);
  });

  test(`nothing outside ${ORDERS} imports ${INTERNAL.join(', ')} or the order entity file`, () => {
    const found: string[] = [];
    for (const f of outside) {
      if (isEntityList(f)) continue;
      for (const i of imports(readFileSync(f, 'utf8'))) {
        if (!intoOrders(f, i.from)) continue;
        const used = i.names.filter((n) => INTERNAL.includes(n));
        if (used.length || /order\.entity(\.js)?$/.test(i.from)) found.push(`${relative('.', f)}: ${used.join(', ') || i.from}`);
      }
    }
    assert.deepEqual(found, []);
  });

  test('nothing outside the order domain keeps its own copy of the order lock or change path', () => {
    const found = outside.filter((f) => /\bfunction\s+(lockOrder|changeOrder)\b/.test(readFileSync(f, 'utf8')));
    assert.deepEqual(found, []);
  });

  test('nothing outside the order domain writes the orders or order_statuses tables with SQL', () => {
    const found = outside
      .filter((f) => !f.includes(`${sep}migrations${sep}`))
      .filter((f) => /\b(?:update|insert\s+into|delete\s+from)\s+(?:orders|order_statuses)\b/i.test(readFileSync(f, 'utf8')));
    assert.deepEqual(found, []);
  });
});

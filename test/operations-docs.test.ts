import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

test('docs/operations.md lists every environment variable src/config.ts reads', () => {
  const config = readFileSync('src/config.ts', 'utf8');
  const docs = readFileSync('docs/operations.md', 'utf8');
  const names = new Set([...config.matchAll(/env\.([A-Z][A-Z0-9_]+)|['"]((?:SOUK|DATABASE|LOG|NODE|HOST|PORT)[A-Z0-9_]*)['"]/g)].map((m) => m[1] ?? m[2]));
  assert.ok(names.size >= 15, `found only ${names.size} variables in src/config.ts`);
  const documented = new Set([...docs.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((m) => m[1]));
  const missing = [...names].filter((n) => !documented.has(n));
  assert.deepEqual(missing, [], `not in the docs/operations.md table: ${missing.join(', ')}`);
});

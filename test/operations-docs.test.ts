import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

test('docs/operations.md lists every environment variable src/config.ts reads', () => {
  const config = readFileSync('src/config.ts', 'utf8');
  const docs = readFileSync('docs/operations.md', 'utf8');
  const names = new Set([...config.matchAll(/env\.([A-Z][A-Z0-9_]+)|['"]((?:SOUK|DATABASE|LOG|NODE|HOST|PORT)[A-Z0-9_]*)['"]/g)].map((m) => m[1] ?? m[2]));
  assert.ok(names.size >= 15, `found only ${names.size} variables in src/config.ts`);
  const documented = new Set([...docs.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((m) => m[1]));
  const missing = [...names].filter((n) => !documented.has(n));
  assert.deepEqual(missing, [], `not in the docs/operations.md table: ${missing.join(', ')}`);
});

/** Every source file's text, where the log calls are. */
function sources(dir = 'src'): string {
  return readdirSync(dir, { withFileTypes: true })
    .map((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? readFileSync(join(dir, e.name), 'utf8') : ''))
    .join('\n');
}

test('docs/operations.md quotes the log lines the code prints, and lists each variable once', () => {
  const docs = readFileSync('docs/operations.md', 'utf8');
  const section = docs.slice(docs.indexOf('## Lines the service prints'), docs.indexOf('## Exit codes at start'));
  const quoted = [...section.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]);
  assert.ok(quoted.length >= 6, `found only ${quoted.length} lines`);
  const code = sources();
  // A quoted line is found as written, its <placeholders> standing for the code's ${expressions}.
  const missing = quoted.filter((line) => {
    const pattern = line
      .split(/<[^>]+>/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('\\$\\{[^}]+\\}');
    return !new RegExp(pattern).test(code);
  });
  assert.deepEqual(missing, [], `quoted in docs/operations.md but printed nowhere: ${missing.join(' | ')}`);
  const vars = [...docs.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((m) => m[1]);
  assert.deepEqual(vars.filter((v, i) => vars.indexOf(v) !== i), [], 'a variable is listed twice');
});

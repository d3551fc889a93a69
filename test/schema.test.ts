import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createSchema, schemaText } from '../src/server/schema.js';

test('schema/schema.graphql matches the schema the code builds (run npm run schema:emit)', async () => {
  const committed = readFileSync(new URL('../schema/schema.graphql', import.meta.url), 'utf8');
  assert.equal(committed, schemaText(await createSchema()));
});

test('the contract names tests rely on exist', async () => {
  const text = schemaText(await createSchema());
  assert.match(text, /store\(id: ID!\): Store!/);
});

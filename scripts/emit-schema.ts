import { writeFileSync } from 'node:fs';
import { createSchema, schemaText } from '../src/server/schema.js';

// Writes schema/schema.graphql from the code; the schema test fails when it drifts.
const schema = await createSchema();
writeFileSync(new URL('../schema/schema.graphql', import.meta.url), schemaText(schema));
console.log('schema/schema.graphql written');

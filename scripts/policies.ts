import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { getMetadataStorage } from 'type-graphql';
import type { GraphQLSchema } from 'graphql';
import { createSchema } from '../src/server/schema.js';
import { describePolicy, PERMISSIONS, rootPolicies } from '../src/core/policy.js';

export const POLICIES_DOC = new URL('../docs/policies.md', import.meta.url);

/** `Query.products` → `Product`: the resolver class that declares the field names its domain. */
function domains(): Map<string, string> {
  const storage = getMetadataStorage();
  const byField = new Map<string, string>();
  const groups = [
    ['Query', storage.queries],
    ['Mutation', storage.mutations],
    ['Subscription', storage.subscriptions],
  ] as const;
  for (const [type, list] of groups) {
    for (const r of list) byField.set(`${type}.${r.schemaName}`, r.target.name.replace(/Resolver$/, ''));
  }
  return byField;
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** The policy of every root field, grouped by domain, and the permission table they use. */
export function policiesMarkdown(schema: GraphQLSchema): string {
  const owner = domains();
  const byDomain = new Map<string, Array<{ field: string; policy: string }>>();
  for (const { type, field, policy } of rootPolicies(schema)) {
    const domain = owner.get(`${type}.${field}`) ?? 'Other';
    const rows = byDomain.get(domain) ?? [];
    rows.push({ field: `${type}.${field}`, policy: describePolicy(policy) });
    byDomain.set(domain, rows);
  }
  const out = [
    '# Authorization policies',
    '',
    'Generated from the schema by `npm run policies -- --write`; a test fails when this file is out of date.',
    'Every root GraphQL field declares one policy with `@Allow(...)` (src/core/policy.ts); a field without one is refused.',
    'REST routes run these fields, so each route has the policy of its field (OpenAPI: `x-souk-policy` and `security`).',
    '',
    '## Store permissions',
    '',
    'A member needs the role or higher; an OAuth app token needs one of the scopes as well, and acts with the granting',
    "user's current role in the store (scope ∩ role). Non-members get 404, members who fall short 403.",
    '',
    '| permission | lowest role | OAuth scopes (any one) |',
    '|---|---|---|',
    ...Object.entries(PERMISSIONS).map(([name, rule]) => `| ${name} | ${rule.role} | ${rule.scopes.join(', ')} |`),
  ];
  for (const domain of [...byDomain.keys()].sort()) {
    out.push('', `## ${domain}`, '', '| field | policy |', '|---|---|');
    for (const row of byDomain.get(domain)!.sort((a, b) => (a.field < b.field ? -1 : 1))) out.push(`| ${row.field} | ${cell(row.policy)} |`);
  }
  return out.join('\n') + '\n';
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const text = policiesMarkdown(await createSchema());
  if (process.argv.includes('--write')) {
    writeFileSync(POLICIES_DOC, text);
    console.log('docs/policies.md written');
  } else {
    process.stdout.write(text);
  }
}

import { isInputObjectType, isListType, isNonNullType, type GraphQLInputType } from 'graphql';

const PLAIN_DATE = /^\d{4}-\d\d-\d\d$/;
const carriesDateTime = new WeakMap<GraphQLInputType, boolean>();

/** Whether a value of `type` can hold a DateTimeISO anywhere (input types can refer to themselves). */
function search(type: GraphQLInputType, seen: Set<GraphQLInputType>): boolean {
  const t = isNonNullType(type) ? type.ofType : type;
  if (isListType(t)) return search(t.ofType, seen);
  if (!isInputObjectType(t)) return t.name === 'DateTimeISO';
  if (seen.has(t)) return false;
  seen.add(t);
  return Object.values(t.getFields()).some((f) => search(f.type, seen));
}

function holdsDateTime(type: GraphQLInputType): boolean {
  let found = carriesDateTime.get(type);
  if (found === undefined) carriesDateTime.set(type, (found = search(type, new Set())));
  return found;
}

function midnight(value: unknown, type: GraphQLInputType): unknown {
  if (value === null || value === undefined || !holdsDateTime(type)) return value;
  const t = isNonNullType(type) ? type.ofType : type;
  if (isListType(t)) return Array.isArray(value) ? value.map((v) => midnight(v, t.ofType)) : midnight(value, t.ofType);
  if (isInputObjectType(t)) {
    if (typeof value !== 'object' || Array.isArray(value)) return value;
    const fields = t.getFields();
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fields[k] ? midnight(v, fields[k].type) : v]));
  }
  return typeof value === 'string' && PLAIN_DATE.test(value) ? `${value}T00:00:00.000Z` : value;
}

/**
 * REST takes a plain date (`2030-01-15`) where a date-time goes, as midnight UTC: GraphQL's
 * DateTimeISO wants the time written. The variables come back with those values rewritten (the
 * request's own body untouched); variables whose types hold no date-time are returned as they are.
 */
export function plainDatesAsMidnight(declared: Map<string, GraphQLInputType>, variables: Record<string, unknown>): Record<string, unknown> {
  let out = variables;
  for (const [name, type] of declared) {
    if (variables[name] === undefined || !holdsDateTime(type)) continue;
    if (out === variables) out = { ...variables };
    out[name] = midnight(variables[name], type);
  }
  return out;
}

import { ApolloArmor } from '@escape.tech/graphql-armor';
import type { ApolloServerPlugin } from '@apollo/server';
import {
  getNamedType,
  GraphQLError,
  isCompositeType,
  Kind,
  type FieldNode,
  type GraphQLCompositeType,
  type GraphQLObjectType,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { isOutbound } from '../core/cost.js';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../lib/pagination.js';

/**
 * What one GraphQL request may ask for. Aliases, depth and directives are checked by
 * graphql-armor's rules; the cost and the outbound-field cap by the two rules below, since the
 * list sizes here come from `limit` arguments (armor's cost rule reads only `first`/`last`).
 * Tokens are counted by graphql-js's own parser (`parseOptions.maxTokens`): armor's token plugin
 * throws from an Apollo hook, which Apollo 5 answers with a 500. Every refusal is HTTP 400 with
 * the code BAD_REQUEST.
 */
export const GRAPHQL_LIMITS = {
  aliases: 20,
  depth: 10,
  directives: 50,
  tokens: 5000,
  cost: 20_000,
  outboundFields: 1,
} as const;

const refuse = (context: ValidationContext | undefined, message: string) =>
  context?.reportError(new GraphQLError(message.replace(/^Syntax Error: /, ''), { extensions: { code: 'BAD_REQUEST' } }));

/** armor's rules report through this instead of throwing, so the request answers 400 with every reason. */
const reporting = { propagateOnRejection: false, onReject: [(ctx: ValidationContext | null, err: GraphQLError) => refuse(ctx ?? undefined, err.message)] };

/**
 * The cost of an operation: every field costs 1 plus its selections; a field with a `limit`
 * argument multiplies its subtree by that list size (the literal, a variable's default, or the
 * page maximum when a variable is unknown at validation; the field's default when omitted).
 * Fragments are expanded where they are spread.
 */
function operationCost(context: ValidationContext, op: OperationDefinitionNode): number {
  const defaults = new Map((op.variableDefinitions ?? []).map((v) => [v.variable.name.value, v.defaultValue]));
  const seen = new Set<string>();
  const listSize = (node: FieldNode, fieldArgs: ReadonlyArray<{ name: string; defaultValue: unknown }>): number => {
    const declared = fieldArgs.find((a) => a.name === 'limit');
    if (!declared) return 1;
    const given = node.arguments?.find((a) => a.name.value === 'limit')?.value;
    if (!given) return typeof declared.defaultValue === 'number' ? declared.defaultValue : DEFAULT_LIMIT;
    if (given.kind === Kind.INT) return Math.min(Number(given.value), MAX_LIMIT);
    if (given.kind === Kind.VARIABLE) {
      const d = defaults.get(given.name.value);
      return d?.kind === Kind.INT ? Math.min(Number(d.value), MAX_LIMIT) : MAX_LIMIT;
    }
    return 1;
  };
  const cost = (set: SelectionSetNode | undefined, type: GraphQLCompositeType | null): number => {
    if (!set || !type) return 0;
    let total = 0;
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) {
        if (sel.name.value.startsWith('__')) continue;
        const def = 'getFields' in type ? (type as GraphQLObjectType).getFields()[sel.name.value] : undefined;
        if (!def) continue;
        const child = getNamedType(def.type);
        total += listSize(sel, def.args) * (1 + cost(sel.selectionSet, isCompositeType(child) ? child : null));
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        const cond = sel.typeCondition ? context.getSchema().getType(sel.typeCondition.name.value) : type;
        total += cost(sel.selectionSet, cond && isCompositeType(cond) ? cond : type);
      } else {
        // A fragment spread inside itself is refused by the spec's own rules; count it once here.
        if (seen.has(sel.name.value)) continue;
        seen.add(sel.name.value);
        const fragment = context.getFragment(sel.name.value);
        const cond = fragment && context.getSchema().getType(fragment.typeCondition.name.value);
        total += fragment ? cost(fragment.selectionSet, cond && isCompositeType(cond) ? cond : type) : 0;
        seen.delete(sel.name.value);
      }
    }
    return total;
  };
  const root = op.operation === 'query' ? context.getSchema().getQueryType() : op.operation === 'mutation' ? context.getSchema().getMutationType() : context.getSchema().getSubscriptionType();
  return cost(op.selectionSet, root ?? null);
}

export const costLimitRule: ValidationRule = (context) => ({
  OperationDefinition(op) {
    const cost = operationCost(context, op);
    if (cost > GRAPHQL_LIMITS.cost) refuse(context, `The query costs ${cost}, over the limit of ${GRAPHQL_LIMITS.cost}: ask for fewer fields, aliases or a smaller limit`);
  },
});

/** Root fields marked @Outbound (they call out of the service): at most one per request. */
export const outboundFieldsRule: ValidationRule = (context) => ({
  OperationDefinition(op) {
    const root = op.operation === 'mutation' ? context.getSchema().getMutationType() : op.operation === 'query' ? context.getSchema().getQueryType() : null;
    if (!root) return;
    const found: string[] = [];
    const visit = (set: SelectionSetNode, depth: number) => {
      for (const sel of set.selections) {
        if (sel.kind === Kind.FIELD) {
          const def = root.getFields()[sel.name.value];
          if (def && isOutbound(def)) found.push(sel.name.value);
        } else if (sel.kind === Kind.INLINE_FRAGMENT) {
          visit(sel.selectionSet, depth);
        } else if (depth < 10) {
          const fragment = context.getFragment(sel.name.value);
          if (fragment) visit(fragment.selectionSet, depth + 1);
        }
      }
    };
    visit(op.selectionSet, 0);
    if (found.length > GRAPHQL_LIMITS.outboundFields) {
      refuse(context, `A request may call at most ${GRAPHQL_LIMITS.outboundFields} field that reaches outside the service (${[...new Set(found)].join(', ')}); send one request each`);
    }
  },
});

/** The validation rules, parser options and Apollo plugins for /graphql; the event stream takes the rules and parser options. */
export function graphqlLimits(): { validationRules: ValidationRule[]; parseOptions: { maxTokens: number }; plugins: ApolloServerPlugin[] } {
  const armor = new ApolloArmor({
    costLimit: { enabled: false },
    maxTokens: { enabled: false },
    maxAliases: { n: GRAPHQL_LIMITS.aliases, ...reporting },
    maxDepth: { n: GRAPHQL_LIMITS.depth, ...reporting },
    maxDirectives: { n: GRAPHQL_LIMITS.directives, ...reporting },
    blockFieldSuggestion: { enabled: true },
  }).protect();
  return {
    validationRules: [...armor.validationRules, costLimitRule, outboundFieldsRule],
    parseOptions: { maxTokens: GRAPHQL_LIMITS.tokens },
    plugins: armor.plugins as ApolloServerPlugin[],
  };
}

import { compileQuery, isCompiledQuery } from 'graphql-jit';
import {
  execute,
  GraphQLError,
  getOperationAST,
  Kind,
  valueFromASTUntyped,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type OperationTypeNode,
  type SelectionSetNode,
} from 'graphql';
import { getVariableValues } from 'graphql/execution/values.js';
import { onPrimary, type Ctx } from '../core/context.js';

/**
 * GraphQL execution through compiled operations (graphql-jit): an operation is turned once into
 * a JavaScript function that calls the schema's resolvers, where graphql-js walks the schema and
 * the document on every request (about half the CPU of a product read).
 *
 * Variables are still coerced by graphql-js first, so bad input is refused with its exact
 * messages (the REST problem details and GraphQL errors are built from them); only valid
 * variables reach the compiled function. Operations graphql-jit does not take (subscriptions,
 * introspection, a document it cannot compile) run on graphql-js as before.
 */
export interface Operation {
  /** Whether graphql-jit runs it (false: graphql-js). */
  readonly compiled: boolean;
  run(contextValue: unknown, variableValues: Record<string, unknown> | undefined | null): Promise<ExecutionResult> | ExecutionResult;
}

/** Uses before an operation is compiled: a document sent once is not worth compiling (~1-5 ms). */
const COMPILE_AFTER = 2;

interface Entry {
  uses: number;
  operation: Operation | null;
  kind: OperationTypeNode | undefined;
}

/** graphql-js, for what is not compiled. */
function interpreted(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined): Operation {
  return {
    compiled: false,
    run: (contextValue, variableValues) => execute({ schema, document, contextValue, variableValues, operationName }),
  };
}

function touchesIntrospection(selectionSet: SelectionSetNode, document: DocumentNode, seen = new Set<string>()): boolean {
  for (const s of selectionSet.selections) {
    if (s.kind === Kind.FIELD) {
      if (s.name.value.startsWith('__') && s.name.value !== '__typename') return true;
      if (s.selectionSet && touchesIntrospection(s.selectionSet, document, seen)) return true;
    } else if (s.kind === Kind.INLINE_FRAGMENT) {
      if (touchesIntrospection(s.selectionSet, document, seen)) return true;
    } else if (!seen.has(s.name.value)) {
      seen.add(s.name.value);
      const fragment = document.definitions.find((d) => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === s.name.value);
      if (fragment?.kind === Kind.FRAGMENT_DEFINITION && touchesIntrospection(fragment.selectionSet, document, seen)) return true;
    }
  }
  return false;
}

/** The compiled form of one operation, or graphql-js where it does not apply. */
export function compileOperation(schema: GraphQLSchema, document: DocumentNode, operationName?: string): Operation {
  const op: OperationDefinitionNode | null | undefined = getOperationAST(document, operationName);
  if (!op || op.operation === 'subscription' || touchesIntrospection(op.selectionSet, document)) return interpreted(schema, document, operationName);
  let compiled: ReturnType<typeof compileQuery<Record<string, unknown>, Record<string, unknown>>>;
  try {
    // Errors keep the resolver's own stack (their originalError); none is captured for nothing.
    compiled = compileQuery(schema, document, operationName, { disablingCapturingStackErrors: true });
  } catch {
    return interpreted(schema, document, operationName);
  }
  if (!isCompiledQuery(compiled)) return interpreted(schema, document, operationName);
  const definitions = op.variableDefinitions ?? [];
  // graphql-jit ignores the default of a non-null variable and refuses it as not provided: the
  // default is handed to it as a client would send it.
  const defaults = definitions
    .filter((d) => d.defaultValue && d.type.kind === Kind.NON_NULL_TYPE)
    .map((d) => [d.variable.name.value, valueFromASTUntyped(d.defaultValue!)] as const);
  const query = compiled.query;
  return {
    compiled: true,
    run(contextValue, variableValues) {
      let raw = variableValues ?? {};
      if (definitions.length) {
        // What graphql-js's execute answers for variables it refuses, word for word.
        const coerced = getVariableValues(schema, definitions, raw, { maxErrors: 50 });
        if (coerced.errors) return { errors: coerced.errors };
        for (const [name, value] of defaults) if (raw[name] === undefined) raw = { ...raw, [name]: value };
      }
      const result = query(undefined, contextValue, raw) as Promise<ExecutionResult> | ExecutionResult;
      return result instanceof Promise ? result.then(writableErrors) : writableErrors(result);
    },
  };
}

/**
 * graphql-jit freezes its errors' `message`, and Apollo's plugins (graphql-armor's suggestion
 * mask) rewrite it: a frozen one throws there and turns a NOT_FOUND into a 500. Errors are
 * handed on as graphql-js makes them, locations included.
 */
function writableErrors(result: ExecutionResult): ExecutionResult {
  if (!result.errors?.length) return result;
  const errors = result.errors.map((e) => {
    const error = new GraphQLError(e.message, { nodes: e.nodes, source: e.source, positions: e.positions, path: e.path, originalError: e.originalError, extensions: e.extensions });
    // graphql-jit's errors carry their locations without nodes or source to compute them from.
    if (!error.locations && e.locations) (error as { locations?: unknown }).locations = e.locations;
    return error;
  });
  return { ...result, errors };
}

/** PostgreSQL's "cannot execute … in a read-only transaction": a write that reached a standby. */
function wroteOnReplica(result: ExecutionResult): boolean {
  return !!result.errors?.some((e) => {
    for (let err: unknown = e.originalError; err; err = (err as { cause?: unknown }).cause) {
      if ((err as { code?: unknown }).code === '25006') return true;
    }
    return false;
  });
}

/**
 * Where the operation's reads go (db/replicas.ts). A mutation keeps its request, and for a few
 * seconds its caller, off the read replicas: noted when it starts and again when it ends, the
 * window counting from the commit. A query reads from a replica unless its caller wrote lately:
 * its resolvers get a context whose `em` is the replica's, while transactions, locks, access
 * checks and the few writes a query makes use the primary (`primaryEm`). A query that still
 * wrote through the replica runs again on the primary. Subscriptions stay on the primary (their
 * access is re-checked for as long as they run).
 */
function routeReads(op: Operation, kind: OperationTypeNode | undefined): Operation {
  if (kind === 'mutation') {
    return {
      compiled: op.compiled,
      async run(contextValue, variableValues) {
        const ctx = contextValue as Ctx;
        ctx.deps.db.reads.wrote(ctx);
        try {
          return await op.run(contextValue, variableValues);
        } finally {
          ctx.deps.db.reads.wrote(ctx);
        }
      },
    };
  }
  if (kind !== 'query') return op;
  return {
    compiled: op.compiled,
    async run(contextValue, variableValues) {
      const ctx = contextValue as Ctx;
      const reads = ctx.deps.db.reads.ctx(ctx);
      if (reads === ctx) return op.run(contextValue, variableValues);
      const result = await op.run(reads, variableValues);
      if (!wroteOnReplica(result)) return result;
      ctx.deps.log.warn({ operation: kind }, 'a query wrote through a read replica: run again on the primary');
      return op.run(onPrimary(ctx), variableValues);
    },
  };
}

/**
 * Operations by document, compiled on their second use: documents come from the REST table
 * (fixed, parsed once) or from Apollo's document cache (the same object for the same text), so
 * the document object is the key and a forgotten document takes its operations with it.
 */
export class OperationCache {
  private readonly byDocument = new WeakMap<DocumentNode, Map<string, Entry>>();

  constructor(private readonly schema: GraphQLSchema) {}

  get(document: DocumentNode, operationName?: string | null): Operation {
    let ops = this.byDocument.get(document);
    if (!ops) this.byDocument.set(document, (ops = new Map()));
    const key = operationName ?? '';
    let entry = ops.get(key);
    if (!entry) ops.set(key, (entry = { uses: 0, operation: null, kind: getOperationAST(document, operationName)?.operation }));
    if (entry.operation) return entry.operation;
    if (++entry.uses >= COMPILE_AFTER) {
      entry.operation = routeReads(compileOperation(this.schema, document, operationName ?? undefined), entry.kind);
      return entry.operation;
    }
    return routeReads(interpreted(this.schema, document, operationName ?? undefined), entry.kind);
  }
}

import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { cpuTask, type CpuOwner, type CpuPool } from '../../core/cpu.js';
import { AppError, invalid, type FieldError } from '../../core/errors.js';
import { linearRegExp } from '../../lib/linear-regexp.js';

// ajv-formats ships CommonJS; its default export arrives wrapped under tsx and Node alike.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

const OPTIONS = { strict: false, allErrors: true, code: { regExp: linearRegExp } } as const;

/**
 * Unknown keywords are allowed (editor schemas carry UI hints), but a schema must satisfy the
 * JSON Schema meta-schema (checked by one long-lived instance that keeps nothing of the store's
 * schema) and compile (in a throwaway instance: Ajv caches every schema it compiles).
 */
const meta = addFormats(new Ajv(OPTIONS));
const compiler = () => addFormats(new Ajv({ ...OPTIONS, meta: false, validateSchema: false, addUsedSchema: false }));

/** Ajv's `/a/0/b` instance path as our dotted field path under `prefix`. */
function fieldPath(prefix: string, pointer: string): string {
  const parts = pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  return [prefix, ...parts].join('.');
}

const toFieldErrors = (prefix: string, errors: ErrorObject[] | null | undefined): FieldError[] =>
  (errors ?? []).map((e) => ({
    path: fieldPath(prefix, e.instancePath + (e.keyword === 'required' ? `/${(e.params as { missingProperty: string }).missingProperty}` : '')),
    message: e.keyword === 'required' ? 'is required' : (e.message ?? 'is invalid'),
  }));

const failed = (errors: FieldError[]) => new AppError('VALIDATION_FAILED', errors.map((e) => `${e.path}: ${e.message}`).join('; '), errors);

export interface SchemaCheck {
  schema: Record<string, unknown>;
  schemaPath: string;
  value?: { data: unknown; path: string };
}

/**
 * Checks that `schema` is a JSON Schema Ajv compiles (400 at `schemaPath`, or at the faulty
 * keyword under it) and that `value`, when given, validates against it (400 at `valuePath...`).
 * Runs in the CPU pool (CHECK_SCHEMAS): compiling and validating a store's schema is its CPU.
 */
export function checkSchema({ schema, schemaPath, value }: SchemaCheck): void {
  if (schema.$async !== undefined) throw invalid(`${schemaPath}.$async`, 'asynchronous schemas are not supported');
  let valid: boolean;
  try {
    valid = meta.validateSchema(schema) as boolean;
  } catch (err) {
    throw invalid(`${schemaPath}.$schema`, `is not supported: ${(err as Error).message}`);
  }
  if (!valid) throw failed(toFieldErrors(schemaPath, meta.errors).slice(0, 20));
  let validate: ValidateFunction;
  try {
    validate = compiler().compile(schema);
  } catch (err) {
    throw invalid(schemaPath, `does not compile: ${(err as Error).message}`);
  }
  if (value && !validate(value.data)) throw failed(toFieldErrors(value.path, validate.errors).slice(0, 20));
}

export const CHECK_SCHEMAS = cpuTask<SchemaCheck[], null>('templates.checkSchemas');

export function checkSchemas(checks: SchemaCheck[]): null {
  for (const c of checks) checkSchema(c);
  return null;
}

/** What a schema check may cost: patterns run in linear time, so only a huge schema comes near it. */
const CHECK_TIME_LIMIT_MS = 2_000;

/** The checks, in order, off the event loop for a request's `owner`; the first failure → 400. */
export async function checkSchemasOffThread(cpu: CpuPool, checks: SchemaCheck[], owner: CpuOwner): Promise<void> {
  await cpu.run(CHECK_SCHEMAS, checks, {
    owner,
    timeoutMs: CHECK_TIME_LIMIT_MS,
    overBudget: () => invalid(checks[0]?.schemaPath ?? '', 'takes too long to check (simplify the schema)'),
  });
}

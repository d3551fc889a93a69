import vm from 'node:vm';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { AppError, invalid, type FieldError } from '../../core/errors.js';

// ajv-formats ships CommonJS; its default export arrives wrapped under tsx and Node alike.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

const OPTIONS = { strict: false, allErrors: true } as const;

/**
 * Unknown keywords are allowed (editor schemas carry UI hints), but a schema must satisfy the
 * JSON Schema meta-schema (checked by one long-lived instance that keeps nothing of the store's
 * schema) and compile (in a throwaway instance: Ajv caches every schema it compiles).
 */
const meta = addFormats(new Ajv(OPTIONS));
const compiler = () => addFormats(new Ajv({ ...OPTIONS, meta: false, validateSchema: false, addUsedSchema: false }));

/**
 * Validating runs the store's own regular expressions (`pattern`): that step runs under a V8
 * time limit, so a catastrophic pattern costs its author a 400, not the process its CPU. The
 * limit is wall time, generous enough for a loaded machine.
 */
const VALIDATE_TIME_LIMIT_MS = 1000;
const sandbox = vm.createContext({ work: null as null | (() => unknown) });
const script = new vm.Script('work()');

function bounded<T>(fn: () => T, path: string): T {
  sandbox.work = fn;
  try {
    return script.runInContext(sandbox, { timeout: VALIDATE_TIME_LIMIT_MS }) as T;
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw invalid(path, 'takes too long to validate (simplify the schema\'s patterns)');
    throw err;
  } finally {
    sandbox.work = null;
  }
}

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

/**
 * Checks that `schema` is a JSON Schema Ajv compiles (400 at `schemaPath`, or at the faulty
 * keyword under it) and that `value`, when given, validates against it (400 at `valuePath...`).
 */
export function checkSchema(schema: Record<string, unknown>, schemaPath: string, value?: { data: unknown; path: string }): void {
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
  if (value && !bounded(() => validate(value.data), value.path)) throw failed(toFieldErrors(value.path, validate.errors).slice(0, 20));
}

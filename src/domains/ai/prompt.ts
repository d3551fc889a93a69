import { Ajv, type ErrorObject } from 'ajv';
import addFormatsImport from 'ajv-formats';
import { cpuTask, type CpuOwner, type CpuPool } from '../../core/cpu.js';
import { AppError, invalid, type FieldError } from '../../core/errors.js';
import { linearRegExp } from '../../lib/linear-regexp.js';

const addFormats = addFormatsImport as unknown as typeof addFormatsImport.default;

/** `{{ name }}`: a placeholder; the name is a JavaScript-style identifier. */
const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The placeholder names of a prompt, in order of first use; a malformed one → 400 at `path`. */
export function placeholders(prompt: string, path = 'prompt'): string[] {
  const names: string[] = [];
  for (const m of prompt.matchAll(PLACEHOLDER)) {
    const name = m[1].trim();
    if (!IDENTIFIER.test(name)) throw invalid(path, `the placeholder {{${m[1]}}} is not a name (letters, digits and _, not starting with a digit)`);
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

/** Names declared by `propsSchema.properties`. */
export function declaredProps(schema: Record<string, unknown>): string[] {
  const props = schema.properties;
  return props && typeof props === 'object' && !Array.isArray(props) ? Object.keys(props) : [];
}

/** Every placeholder of the prompt must be declared in the schema. */
export function assertDeclared(prompt: string, schema: Record<string, unknown>): void {
  const declared = new Set(declaredProps(schema));
  const missing = placeholders(prompt).filter((n) => !declared.has(n));
  if (missing.length) {
    throw invalid('prompt', `${missing.map((n) => `{{${n}}}`).join(', ')} ${missing.length === 1 ? 'is' : 'are'} not declared in propsSchema.properties`);
  }
}

/**
 * A fresh Ajv per compile: schemas are user input and must not accumulate in a shared instance.
 * Their patterns run on the linear-time engine.
 */
function newAjv(): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: true, code: { regExp: linearRegExp } });
  addFormats(ajv);
  return ajv;
}

type Validator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/** Compiles a props schema; one that is not valid JSON Schema → 400 at `path`. */
export function compileSchema(schema: Record<string, unknown>, path = 'propsSchema'): Validator {
  if (schema.type !== undefined && schema.type !== 'object') throw invalid(`${path}.type`, 'must be "object": props are named values');
  try {
    return newAjv().compile(schema) as Validator;
  } catch (err) {
    throw invalid(path, `is not a valid JSON Schema: ${(err as Error).message.slice(0, 200)}`);
  }
}

/** `/a/0/b` → `a.0.b` under `prefix`. */
function ajvPath(prefix: string, e: ErrorObject): string {
  const parts = e.instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (e.keyword === 'required') parts.push(String((e.params as { missingProperty: string }).missingProperty));
  if (e.keyword === 'additionalProperties') parts.push(String((e.params as { additionalProperty: string }).additionalProperty));
  return [prefix, ...parts].filter(Boolean).join('.');
}

/**
 * Validates props against the schema; every failure → 400 with its path under `prefix`. With
 * `defaults`, the values are a template's defaults: a top-level required property may be left
 * for each generation to give.
 */
export function validateProps(validate: Validator, props: Record<string, unknown>, prefix = 'props', defaults = false): void {
  if (validate(props)) return;
  const failures = (validate.errors ?? []).filter((e) => !(defaults && e.keyword === 'required' && e.instancePath === ''));
  if (!failures.length) return;
  const errors: FieldError[] = failures.map((e) => ({
    path: ajvPath(prefix, e),
    message: e.keyword === 'required' ? 'is required' : e.keyword === 'additionalProperties' ? 'is not declared in propsSchema' : (e.message ?? 'is invalid'),
  }));
  throw new AppError('VALIDATION_FAILED', errors.map((e) => `${e.path}: ${e.message}`).join('; '), errors);
}

export interface PropsCheck {
  schema: Record<string, unknown>;
  /** Where a schema that does not compile is reported. */
  schemaPath: string;
  /** Given: every placeholder of this prompt must be declared in the schema. */
  prompt?: string;
  /** Each set of values must validate (failures reported under `prefix`). */
  values: Array<Record<string, unknown>>;
  prefix: string;
  /** The values are a template's defaults (see validateProps). */
  defaults?: boolean;
}

export const CHECK_PROPS = cpuTask<PropsCheck, null>('ai.checkProps');

/** Compiles the schema and validates the values: the CPU half of a template write or a generation request. */
export function checkProps(c: PropsCheck): null {
  const validate = compileSchema(c.schema, c.schemaPath);
  if (c.prompt !== undefined) assertDeclared(c.prompt, c.schema);
  for (const values of c.values) validateProps(validate, values, c.prefix, c.defaults);
  return null;
}

/** Schemas are at most 16 KiB and patterns run in linear time: only a pathological schema comes near this. */
const CHECK_TIME_LIMIT_MS = 2_000;

/** checkProps off the event loop for a request's `owner`; the first failure → 400. */
export async function checkPropsOffThread(cpu: CpuPool, c: PropsCheck, owner: CpuOwner): Promise<void> {
  await cpu.run(CHECK_PROPS, c, { timeoutMs: CHECK_TIME_LIMIT_MS, overBudget: () => invalid(c.schemaPath, 'takes too long to check (simplify the schema)'), owner });
}

function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(text).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** The prompt with each placeholder replaced by its value (lists joined by ", "; missing → empty). */
export function fillPlaceholders(prompt: string, values: Record<string, unknown>): string {
  return prompt.replace(PLACEHOLDER, (_all, name: string) => text(values[name.trim()]));
}

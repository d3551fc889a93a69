import { GraphQLError } from 'graphql';
import { AppError, isErrorCode, vanishedReference, type ErrorCode, type FieldError } from '../core/errors.js';
import { enumValues } from '../core/enums.js';

export interface MappedError {
  code: ErrorCode;
  message: string;
  errors?: FieldError[];
  details?: Record<string, unknown>;
}

interface ClassValidatorError {
  property: string;
  constraints?: Record<string, string>;
  children?: ClassValidatorError[];
}

/** class-validator errors as field errors, without its `target` and `value` (no input echo). */
function flattenValidation(errors: ClassValidatorError[], prefix = ''): FieldError[] {
  return errors.flatMap((e) => {
    const path = prefix ? `${prefix}.${e.property}` : e.property;
    const own = Object.values(e.constraints ?? {}).map((message) => ({ path, message: message.replace(new RegExp(`^${e.property} `), '') }));
    return [...own, ...flattenValidation(e.children ?? [], path)];
  });
}

const DATE_TIME = 'a date and time in ISO 8601, such as 2026-01-31T09:00:00Z';

/** What a value of a scalar must be, in words a REST client reads: GraphQL's type names are not its vocabulary. */
const EXPECTED: Record<string, string> = {
  Float: 'a number',
  Int: 'an integer',
  Boolean: 'true or false',
  String: 'a string',
  ID: 'a string',
  JSON: 'a JSON value',
  JSONObject: 'an object',
  DateTimeISO: DATE_TIME,
  // graphql-scalars' date-time scalar names itself DateTime in its messages.
  DateTime: DATE_TIME,
};

/** `must be …` for a value that is not of `type` (a named type); null for a type without words here. */
function mustBe(type: string, reason: string): string | null {
  if (type === 'Int' && /non 32-bit/.test(reason)) return 'must be an integer from -2147483648 to 2147483647';
  if (EXPECTED[type]) return `must be ${EXPECTED[type]}`;
  return /to be an object/.test(reason) ? 'must be an object' : null;
}

/**
 * GraphQL's variable coercion messages echo the value given; these rewrite them to say
 * what was expected, and where, never what was sent.
 */
function coercionError(message: string): FieldError | null {
  const m = /^Variable "\$(\w+)" got invalid value .*? at "([^"]+)"; (.*)$/s.exec(message)
    ?? /^Variable "\$(\w+)" got invalid value .*?; (.*)$/s.exec(message);
  const m2 = /^Variable "\$(\w+)" of (?:required|non-null) type "([^"]+)" (?:was not provided|must not be null)\.$/.exec(message);
  if (m2) return { path: m2[1], message: 'is required' };
  if (!m) return null;
  // `input.items[0]` → `input.items.0`: one path spelling, the one services and class-validator use.
  const path = (m.length === 4 ? m[2] : m[1]).replace(/\[(\d+)\]/g, '.$1');
  const reason = m.length === 4 ? m[3] : m[2];
  let field = path;
  let text = 'has an invalid value';
  const unknown = /^Field "([^"]+)" is not defined by type "[^"]+"/.exec(reason);
  const missing = /^Field "([^"]+)" of required type "([^"]+)" was not provided/.exec(reason);
  const expected = /^Expected type "([^"]+)"/.exec(reason);
  const cannot = /^(\w+) cannot represent/.exec(reason);
  const expectedValue = /^Expected value of type "([^"]+)"/.exec(reason);
  // Enums say which values they take, as the class-validator rules they replaced did.
  const notInEnum = /^Value .* does not exist in "(\w+)" enum/s.exec(reason) ?? /^Enum "(\w+)" cannot represent/.exec(reason);
  if (notInEnum) {
    const values = enumValues(notInEnum[1]);
    text = values ? `must be one of ${values.join(', ')}` : 'has an invalid value';
  } else if (unknown) {
    field = `${path}.${unknown[1]}`;
    text = 'is not a known field';
  } else if (missing) {
    field = `${path}.${missing[1]}`;
    text = 'is required';
  } else if (/Expected non-nullable type/.test(reason)) {
    text = 'must not be null';
  } else if (cannot ?? expected ?? expectedValue) {
    text = mustBe((cannot ?? expected ?? expectedValue)![1].replace(/[[\]!]/g, ''), reason) ?? text;
  } else if (/is not an object|to be an object/.test(reason)) {
    text = 'must be an object';
  }
  return { path: field, message: text };
}

/** Maps any error a GraphQL execution produced onto the vocabulary. */
export function mapGraphQLError(error: GraphQLError): MappedError {
  const original = error.originalError;
  if (original instanceof AppError) return { code: original.code, message: original.message, errors: original.errors, details: original.details };
  // A one-statement write commits on its own, outside transaction(): its failed check arrives here.
  const vanished = vanishedReference(original);
  if (vanished) return { code: vanished.code, message: vanished.message };
  if (original && 'extensions' in original && (original as GraphQLError).extensions?.validationErrors) {
    const errors = flattenValidation((original as GraphQLError).extensions.validationErrors as ClassValidatorError[]);
    return { code: 'VALIDATION_FAILED', message: errors.map((e) => `${e.path}: ${e.message}`).join('; ') || 'Invalid input', errors };
  }
  if (error.extensions?.validationErrors) {
    const errors = flattenValidation(error.extensions.validationErrors as ClassValidatorError[]);
    return { code: 'VALIDATION_FAILED', message: errors.map((e) => `${e.path}: ${e.message}`).join('; ') || 'Invalid input', errors };
  }
  const coerced = coercionError(error.message);
  if (coerced) return { code: 'VALIDATION_FAILED', message: `${coerced.path}: ${coerced.message}`, errors: [coerced] };
  const ext = error.extensions?.code;
  if (ext === 'GRAPHQL_PARSE_FAILED') return { code: 'BAD_REQUEST', message: error.message };
  if (ext === 'GRAPHQL_VALIDATION_FAILED' || ext === 'BAD_REQUEST' || ext === 'PERSISTED_QUERY_NOT_FOUND') return { code: 'BAD_REQUEST', message: error.message };
  if (ext === 'BAD_USER_INPUT') return { code: 'VALIDATION_FAILED', message: 'Invalid input' };
  if (isErrorCode(ext) && !original) return { code: ext, message: error.message };
  if (!original && !error.path) {
    // Errors raised by graphql-js itself before execution: validation of the document.
    return { code: 'BAD_REQUEST', message: error.message };
  }
  return { code: 'INTERNAL', message: 'Internal server error' };
}

/** Paths from a REST body are relative to the body: drop the variable name. */
export function relativeTo(errors: FieldError[] | undefined, variable: string): FieldError[] | undefined {
  return errors?.map((e) => ({
    ...e,
    path: e.path === variable ? '' : e.path.startsWith(`${variable}.`) ? e.path.slice(variable.length + 1) : e.path,
  }));
}

import { isURL, IsUrl, ValidateBy, type ValidationOptions } from 'class-validator';
import { AppError, type FieldError } from './errors.js';

/**
 * Input text and shape rules that hold for every input, whichever route or field it reaches:
 * U+0000 (PostgreSQL text and jsonb cannot hold it) and lone UTF-16 surrogates (not Unicode;
 * the jsonb cast and validators choke on them) are refused in strings and object keys, and
 * nesting is bounded so no recursive code further in (validators, the ORM, JSON columns)
 * overflows the stack. Two doors apply it: the HTTP edge (path, query string and JSON body of
 * every route) and the GraphQL policy checker (the arguments of every root field, whether they
 * came as variables or literals, over /graphql, REST or SSE).
 */
const BAD_TEXT = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const hasBadText = (s: string) => BAD_TEXT.test(s);

/** Far above any input type plus a JSON value's own 32 levels; a stack guard, not a shape rule. */
export const MAX_INPUT_DEPTH = 64;

const BAD_TEXT_MESSAGE = 'must not contain U+0000 or unpaired surrogate characters';

/** A key as it may appear in an error path: the offending characters shown as U+FFFD. */
const printable = (key: string) => key.replace(new RegExp(BAD_TEXT.source, 'g'), '\uFFFD');

const join = (path: string, key: string | number) => (path ? `${path}.${key}` : String(key));

/**
 * The first rule an input value breaks, with the path of the field at fault. `fieldDepth` is how
 * many path segments name the field (1 for a body's keys, 2 for a GraphQL argument's fields),
 * which is where a nesting error is reported.
 */
export function inputProblem(value: unknown, path = '', fieldDepth = 1): FieldError | null {
  const walk = (v: unknown, p: string, depth: number, field: string): FieldError | null => {
    if (typeof v === 'string') return hasBadText(v) ? { path: p, message: BAD_TEXT_MESSAGE } : null;
    if (v === null || typeof v !== 'object' || Buffer.isBuffer(v) || v instanceof Date) return null;
    if (depth >= MAX_INPUT_DEPTH) return { path: field || p, message: `is nested too deeply (at most ${MAX_INPUT_DEPTH} levels)` };
    const entries: Array<[string | number, unknown]> = Array.isArray(v) ? v.map((item, i) => [i, item]) : Object.entries(v);
    for (const [key, item] of entries) {
      if (typeof key === 'string' && hasBadText(key)) return { path: join(p, printable(key)), message: `is a key that ${BAD_TEXT_MESSAGE}` };
      const next = join(p, key);
      const found = walk(item, next, depth + 1, depth + 1 <= fieldDepth ? next : field);
      if (found) return found;
    }
    return null;
  };
  return walk(value, path, 0, path);
}

/** Throws 400 VALIDATION_FAILED at the field when the value breaks a rule of `inputProblem`. */
export function assertCleanInput(value: unknown, path = '', fieldDepth = 1): void {
  const found = inputProblem(value, path, fieldDepth);
  if (found) throw new AppError('VALIDATION_FAILED', `${found.path ? `${found.path}: ` : ''}${found.message}`, [found]);
}

/** Free-form JSON documents (metadata, app data): bounded in depth and in size. */
export const JSON_MAX_DEPTH = 32;
export const METADATA_MAX_BYTES = 64 * 1024;

/** Levels of nesting: a scalar is 0, `{}` and `[]` are 1, `{"a": {}}` is 2. Stops counting past `limit`. */
export function jsonDepth(value: unknown, limit = JSON_MAX_DEPTH): number {
  if (value === null || typeof value !== 'object') return 0;
  if (limit < 0) return 1;
  let deepest = 0;
  for (const item of Array.isArray(value) ? value : Object.values(value)) {
    deepest = Math.max(deepest, jsonDepth(item, limit - 1));
    if (deepest > limit) break;
  }
  return 1 + deepest;
}

export interface JsonLimits {
  maxDepth?: number;
  maxBytes?: number;
}

/** What is wrong with a JSON document, if anything. */
export function jsonProblem(value: unknown, limits: JsonLimits = {}): { code: 'VALIDATION_FAILED' | 'PAYLOAD_TOO_LARGE'; message: string } | null {
  const maxDepth = limits.maxDepth ?? JSON_MAX_DEPTH;
  if (jsonDepth(value, maxDepth) > maxDepth) return { code: 'VALIDATION_FAILED', message: `must be nested at most ${maxDepth} levels deep` };
  if (limits.maxBytes !== undefined && Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8') > limits.maxBytes) {
    return { code: 'PAYLOAD_TOO_LARGE', message: `must be at most ${limits.maxBytes} bytes of JSON` };
  }
  return null;
}

/** Throws at `path` when the document is too deep (400) or too large (413). */
export function assertJsonLimits(value: unknown, path: string, limits: JsonLimits = {}): void {
  const found = jsonProblem(value, limits);
  if (found) throw new AppError(found.code, `${path}: ${found.message}`, [{ path, message: found.message }]);
}

/**
 * The class-validator form for input types: `@JsonDocument({ maxBytes: METADATA_MAX_BYTES })`
 * on a JSON field refuses documents nested deeper than 32 levels or larger than `maxBytes`.
 */
export function JsonDocument(limits: JsonLimits = {}, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'jsonDocument',
      validator: {
        validate: (value) => value === null || value === undefined || jsonProblem(value, limits) === null,
        defaultMessage: (args) => jsonProblem(args?.value, limits)?.message ?? 'is not a valid JSON document',
      },
    },
    options,
  );
}

/**
 * Links the platform serves to others (previews, logos, component images): http(s) only, so a
 * stored `javascript:` or `data:` URL never reaches a public page.
 */
const HTTP_URL = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };
export const HTTP_URL_MESSAGE = 'must be an http(s) URL';
export const isHttpUrl = (value: unknown): boolean => typeof value === 'string' && isURL(value, HTTP_URL);
export const IsHttpUrl = (options?: ValidationOptions): PropertyDecorator => IsUrl(HTTP_URL, { message: HTTP_URL_MESSAGE, ...options });

/**
 * Characters a name (of a store, a user, an app, a warehouse, a product, ...) may not hold: C0
 * and C1 controls (ESC starts terminal escapes, BEL rings), DEL, line and paragraph separators,
 * and the bidirectional embeddings, overrides and isolates that reorder the text around a name
 * wherever it is shown. The bidi marks (LRM, RLM, ALM), which Arabic text needs, are allowed.
 */
const NOT_IN_NAMES = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
export const NAME_TEXT_MESSAGE = 'must not contain control characters or bidirectional overrides';
export const isNameText = (value: string): boolean => !NOT_IN_NAMES.test(value);

/** `@NameText()` on a name's input field: 400 at the field when it holds a character of `NOT_IN_NAMES`. */
export function NameText(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'nameText',
      validator: {
        validate: (value) => typeof value !== 'string' || isNameText(value),
        defaultMessage: () => NAME_TEXT_MESSAGE,
      },
    },
    options,
  );
}

/**
 * Text shown on a terminal or in a log as one line: controls, separators and every bidirectional
 * formatting character (marks included) written as `\u{…}`, so stored text cannot move the
 * cursor, recolour the screen or reorder what is printed beside it.
 */
export const printableLine = (text: string): string =>
  text.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);

/** JSON Schema shorthands for the face's OpenAPI document. */

type Json = Record<string, unknown>;

export const str: Json = { type: 'string' };
export const nstr: Json = { type: ['string', 'null'] };
export const int: Json = { type: 'integer' };
export const num: Json = { type: 'number' };
export const nnum: Json = { type: ['number', 'null'] };
export const bool: Json = { type: 'boolean' };
export const time: Json = { type: 'string', format: 'date-time' };
export const ntime: Json = { type: ['string', 'null'], format: 'date-time' };
export const anyObj: Json = { type: 'object', additionalProperties: true };
export const nobj: Json = { type: ['object', 'null'], additionalProperties: true };
export const strs: Json = { type: 'array', items: str };
export const arr = (items: Json): Json => ({ type: 'array', items });
export const oneOf = (...values: string[]): Json => ({ type: 'string', enum: values });

/** An object whose listed properties are all present; others may follow (Souk extras). */
export const obj = (properties: Record<string, Json>, optional: string[] = []): Json => ({
  type: 'object',
  properties,
  required: Object.keys(properties).filter((k) => !optional.includes(k)),
  additionalProperties: true,
});

/** A request body: the listed fields, none required unless named, no others. */
export const input = (properties: Record<string, Json>, required: string[] = []): Json => ({
  type: 'object',
  properties,
  ...(required.length ? { required } : {}),
  additionalProperties: false,
});

/** Feeef's numbered page. */
export const pageOf = (item: Json): Json =>
  obj({
    data: arr(item),
    meta: obj(
      { total: int, perPage: int, currentPage: int, lastPage: int, firstPage: int, totalExact: { type: 'boolean', const: false } },
      ['totalExact'],
    ),
  });

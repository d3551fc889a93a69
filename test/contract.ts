import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { DEFAULT_STATUSES } from '../rest-compat/openapi.js';

/**
 * The contract check every REST response of the test suite goes through: the status must be
 * listed for the operation in the served OpenAPI document, and a JSON body must match its schema.
 */
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

interface Contract {
  doc: any;
  ajv: Ajv2020;
  routes: Array<{ template: string; re: RegExp; params: number }>;
  compiled: Map<string, ValidateFunction>;
}

const contracts = new Map<string, Promise<Contract>>();

/** /v1 and the Feeef face each serve their own document; the face's paths are below its prefix. */
const FACES = [
  { prefix: '/feeef/v1', doc: '/feeef/v1/openapi.json' },
  { prefix: '', doc: '/v1/openapi.json' },
];

function load(base: string, docPath = '/v1/openapi.json'): Promise<Contract> {
  const key = `${base}${docPath}`;
  let c = contracts.get(key);
  if (!c) {
    c = (async () => {
      const doc = (await (await fetch(`${base}${docPath}`)).json()) as { paths: Record<string, Record<string, any>> };
      const ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: true });
      addFormats(ajv);
      ajv.addSchema({ ...doc, $id: 'openapi' });
      const routes = Object.keys(doc.paths).map((template) => ({
        template,
        re: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+').replace(/\{[^}]+\}/g, '[^/]+')}$`),
        params: (template.match(/\{/g) ?? []).length,
      }));
      // Literal segments win over parameters (`/orders/counts` before `/orders/{orderId}`).
      routes.sort((a, b) => a.params - b.params);
      return { doc, ajv, routes, compiled: new Map() };
    })();
    contracts.set(key, c);
  }
  return c;
}

const pointer = (...parts: string[]) => parts.map((p) => encodeURIComponent(p.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');

/** Returns a description of the mismatch, or null when the response keeps the contract. */
export async function contractMismatch(base: string, method: string, url: string, status: number, contentType: string, body: unknown): Promise<string | null> {
  const full = decodeURIComponent(url.split('?')[0]).replace(/%3A/gi, ':');
  const face = FACES.find((f) => full.startsWith(`${f.prefix}/`) && (f.prefix || full.startsWith('/v1/')));
  if (!face || full === face.doc) return null;
  const path = full.slice(face.prefix.length);
  const c = await load(base, face.doc);
  const route = c.routes.find((r) => r.re.test(path) && c.doc.paths[r.template][method.toLowerCase()]);
  if (!route) {
    // An unknown route or method answers 404 problem+json, which is the contract too.
    return status === 404 || status === 405 ? null : `${method} ${path}: no operation in the OpenAPI document (answered ${status})`;
  }
  const op = c.doc.paths[route.template][method.toLowerCase()];
  // `default` stands for the transport-level statuses it names, not for any status at all.
  const code = op.responses[String(status)] ? String(status) : DEFAULT_STATUSES.includes(status) && op.responses.default ? 'default' : null;
  if (!code) return `${method} ${route.template}: status ${status} is not listed (listed: ${Object.keys(op.responses).join(', ')})`;
  // Shared answers (errors) are components: follow the reference, and validate against the component.
  const ref: string | undefined = op.responses[code].$ref;
  const at = ref ? ref.slice(2).split('/') : ['paths', route.template, method.toLowerCase(), 'responses', code];
  const response = ref ? c.doc.components.responses[at[2]] : op.responses[code];
  const type = contentType.split(';')[0].trim();
  if (!response.content || !/json$/.test(type)) return null;
  const media = response.content[type] ?? (type === 'application/json' ? null : response.content['application/json']);
  if (!media?.schema) return response.content[type] === undefined && type === 'application/problem+json' ? `${method} ${route.template}: ${status} problem+json not documented` : null;
  const key = `${at.join(' ')} ${type}`;
  let validate = c.compiled.get(key);
  if (!validate) {
    validate = c.ajv.compile({ $ref: `openapi#/${pointer(...at, 'content', type, 'schema')}` });
    c.compiled.set(key, validate);
  }
  if (validate(body)) return null;
  const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
  return `${method} ${route.template} ${status}: body does not match the OpenAPI schema: ${errors.join('; ')}`;
}

import type { RestReply, RestRequest } from './route.js';

/**
 * Reply mappers shared by route groups: the AIP-136 batch envelope (CONTRACT-2 §9) and binary
 * documents with a strong ETag.
 */

export const BATCH_SELECTION = (resource: string) => `resources { ${resource} } failures { index id code message } summary { total succeeded failed } aborted`;

interface BatchValue {
  resources: unknown[];
  failures: Array<{ index: number; code: string; message: string }>;
  summary: { total: number; succeeded: number; failed: number };
  aborted: boolean;
}

/** `failedRequests` is keyed by the id's index in `ids`; an aborted batch is a 400 ABORTED problem. */
export const batchReply =
  (status: 200 | 202) =>
  (v: BatchValue): RestReply => {
    const failedRequests = Object.fromEntries(v.failures.map((f) => [String(f.index), { code: f.code, message: f.message }]));
    if (v.aborted) {
      return {
        status: 400,
        headers: { 'content-type': 'application/problem+json' },
        body: {
          type: 'about:blank',
          title: 'Batch Aborted',
          status: 400,
          detail: `${v.summary.failed} of ${v.summary.total} requests failed; returnPartialSuccess is false, so nothing was changed`,
          code: 'ABORTED',
          failedRequests,
          summary: v.summary,
        },
      };
    }
    return { status, body: { resources: v.resources, failedRequests, summary: v.summary } };
  };

export const batchResponseSchema = (resource: string) => ({
  type: 'object',
  required: ['resources', 'failedRequests', 'summary'],
  properties: {
    resources: { type: 'array', items: { $ref: `#/components/schemas/${resource}` } },
    failedRequests: {
      type: 'object',
      description: "Keyed by the id's 0-based index in ids",
      additionalProperties: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' } } },
    },
    summary: {
      type: 'object',
      required: ['total', 'succeeded', 'failed'],
      properties: { total: { type: 'integer' }, succeeded: { type: 'integer' }, failed: { type: 'integer' } },
    },
  },
});

interface FileValue {
  filename: string;
  contentType: string;
  etag: string;
  disposition: string;
  content: string;
}

/** The bytes of a base64 document field, with its ETag (304 on If-None-Match) and disposition. */
export function fileReply(v: FileValue, req: RestRequest): RestReply {
  const headers: Record<string, string> = { etag: v.etag, 'cache-control': 'private, no-cache' };
  const match = req.headers['if-none-match'];
  if (typeof match === 'string' && match.split(',').some((t) => [v.etag, `W/${v.etag}`, '*'].includes(t.trim()))) return { status: 304, headers };
  return {
    status: 200,
    headers: { ...headers, 'content-type': v.contentType, 'content-disposition': `${v.disposition}; filename="${v.filename}"` },
    body: Buffer.from(v.content, 'base64'),
  };
}

export const FILE_SELECTION = 'filename contentType etag disposition content';

const problemContent = { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } };

/**
 * Routes whose work runs in the CPU pool: saturated, it answers 503 with Retry-After; past the
 * caller's or store's fair share of it, or its budget of work stopped over budget, 429.
 */
export const busyResponses = {
  '429': {
    description: "This store's or caller's share of the rendering threads is taken, or its rendering ran past its budget too often: retry after Retry-After seconds",
    headers: { 'Retry-After': { description: 'Seconds until a retry may succeed', schema: { type: 'integer' } } },
    content: problemContent,
  },
  '503': {
    description: 'The server is busy with other rendering work: retry after Retry-After seconds',
    headers: { 'Retry-After': { description: 'Seconds until a retry may succeed', schema: { type: 'integer' } } },
    content: problemContent,
  },
};

export const pdfResponses = {
  '200': { description: 'The PDF', content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } } },
  '304': { description: 'Not Modified (If-None-Match)' },
  '422': { description: 'The document is over its size budget (item rows of all the purchase orders); the detail names the limit', content: problemContent },
  ...busyResponses,
};

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { PNG } from 'pngjs';

/**
 * A local stand-in for OpenAI's images API (`POST /v1/images/generations`), speaking its wire
 * shape: bearer key, JSON body, `{created, data: [{b64_json}]}` answers, `{error: {...}}` errors.
 * Requests that break the shape are refused the way OpenAI refuses them and recorded in
 * `problems`. Behaviour per request: the next entry of `script`, else `mode`.
 */
export type FakeMode = 'ok' | 'rate-limit' | 'hang' | 'unauthorized' | 'server-error';

export interface FakeRequest {
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
  mode: FakeMode;
  at: number;
}

const KNOWN = new Set(['model', 'prompt', 'n', 'size', 'response_format', 'output_format', 'quality', 'style', 'user', 'background', 'moderation', 'output_compression']);

/** A flat PNG of the size, its colour taken from the prompt, so answers differ by prompt. */
function png(width: number, height: number, prompt: string, i: number): Buffer {
  const img = new PNG({ width, height });
  let h = i * 31;
  for (const ch of prompt) h = (h * 33 + ch.charCodeAt(0)) >>> 0;
  for (let p = 0; p < width * height; p++) {
    img.data[p * 4] = h & 255;
    img.data[p * 4 + 1] = (h >> 8) & 255;
    img.data[p * 4 + 2] = (h >> 16) & 255;
    img.data[p * 4 + 3] = 255;
  }
  // Fast to encode: the fake shares the test process with the service.
  return PNG.sync.write(img, { deflateLevel: 1 });
}

function error(res: ServerResponse, status: number, message: string, type: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ error: { message, type, param: null, code: null } }));
}

export async function startFakeOpenAiImages(apiKey = 'sk-test-fake-key') {
  const requests: FakeRequest[] = [];
  const problems: string[] = [];
  const sockets = new Set<Socket>();
  const hanging = new Set<ServerResponse>();
  const state = { mode: 'ok' as FakeMode, script: [] as FakeMode[] };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/images/generations') {
        problems.push(`unexpected ${req.method} ${req.url}`);
        return error(res, 404, `Invalid URL (${req.method} ${req.url})`, 'invalid_request_error');
      }
      if (req.headers.authorization !== `Bearer ${apiKey}`) {
        problems.push('missing or wrong bearer key');
        return error(res, 401, 'Incorrect API key provided.', 'invalid_request_error');
      }
      if (!/^application\/json/.test(req.headers['content-type'] ?? '')) {
        problems.push(`content-type ${req.headers['content-type']}`);
        return error(res, 400, 'Expected a JSON body.', 'invalid_request_error');
      }
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        problems.push('body is not JSON');
        return error(res, 400, 'We could not parse the JSON body of your request.', 'invalid_request_error');
      }
      const unknown = Object.keys(body).filter((k) => !KNOWN.has(k));
      const shape: string[] = [
        ...unknown.map((k) => `Unknown parameter: '${k}'.`),
        ...(typeof body.model !== 'string' || !body.model ? ['model must be a string'] : []),
        ...(typeof body.prompt !== 'string' || !body.prompt || body.prompt.length > 32000 ? ['prompt must be a non-empty string'] : []),
        ...(!Number.isInteger(body.n) || (body.n as number) < 1 || (body.n as number) > 10 ? ['n must be an integer from 1 to 10'] : []),
        ...(typeof body.size !== 'string' || !/^\d+x\d+$/.test(body.size) ? ['size must be WIDTHxHEIGHT'] : []),
        ...(body.response_format !== undefined && body.response_format !== 'b64_json' && body.response_format !== 'url' ? ['response_format must be url or b64_json'] : []),
        ...(String(body.model).startsWith('gpt-image') && body.response_format !== undefined ? ["Unknown parameter: 'response_format'."] : []),
        ...(!String(body.model).startsWith('gpt-image') && body.response_format !== 'b64_json' ? ['this fake answers base64 only: response_format must be b64_json'] : []),
      ];
      if (shape.length) {
        problems.push(...shape);
        return error(res, 400, shape.join(' '), 'invalid_request_error');
      }
      const mode = state.script.shift() ?? state.mode;
      requests.push({ headers: req.headers, body, mode, at: Date.now() });
      switch (mode) {
        case 'hang':
          hanging.add(res);
          res.on('close', () => hanging.delete(res));
          return;
        case 'rate-limit':
          return error(res, 429, 'Rate limit reached for images per minute.', 'requests', { 'retry-after': '1' });
        case 'unauthorized':
          return error(res, 401, 'Incorrect API key provided.', 'invalid_request_error');
        case 'server-error':
          return error(res, 500, 'The server had an error while processing your request.', 'server_error');
        case 'ok': {
          const [w, h] = (body.size as string).split('x').map(Number);
          const data = Array.from({ length: body.n as number }, (_, i) => ({ b64_json: png(w, h, body.prompt as string, i).toString('base64'), revised_prompt: body.prompt }));
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ created: Math.floor(Date.now() / 1000), data }));
        }
      }
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    apiKey,
    requests,
    problems,
    state,
    /** Resolves once `count` requests arrived. */
    async waitForRequests(count: number, ms = 20_000): Promise<void> {
      const deadline = Date.now() + ms;
      while (requests.length < count) {
        if (Date.now() > deadline) throw new Error(`fake openai: ${requests.length} of ${count} requests after ${ms} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    /** Ends every hanging request by cutting its connection. */
    dropHanging(): void {
      for (const res of hanging) res.destroy();
    },
    async close(): Promise<void> {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export type FakeOpenAiImages = Awaited<ReturnType<typeof startFakeOpenAiImages>>;

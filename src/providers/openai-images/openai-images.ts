import { loadGot } from '../../lib/got.js';
import { parseProviderJson } from '../../lib/json.js';
import { ImageProviderError, type GeneratedImage, type ImageProvider, type ImageRequest } from '../images.js';
import { asBuffer, type CpuPool } from '../../core/cpu.js';
import { imageLimits } from '../local-images/draw.js';
import { FIT_PNG } from '../local-images/png.js';

export interface OpenAiImagesOptions {
  /** Base URL, e.g. `https://api.openai.com/v1`; `/images/generations` is appended. */
  url: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
  /** Decoding and resizing answers runs in the CPU pool. */
  cpu: CpuPool;
}

/** Answers larger than this are cut off (four big base64 PNGs fit well within it). */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * The size to ask for: OpenAI's own models make a few fixed sizes (the nearest aspect is
 * asked for and the answer cropped to fit); any other model is asked for the exact size.
 */
export function requestSize(model: string, width: number, height: number): string {
  const aspect = width / height;
  if (model.startsWith('gpt-image')) return aspect > 1.2 ? '1536x1024' : aspect < 0.8 ? '1024x1536' : '1024x1024';
  if (model === 'dall-e-3') return aspect > 1.2 ? '1792x1024' : aspect < 0.8 ? '1024x1792' : '1024x1024';
  if (model === 'dall-e-2') return width === height && (width === 256 || width === 512) ? `${width}x${height}` : '1024x1024';
  return `${width}x${height}`;
}

/** The request body of `POST /images/generations` in OpenAI's wire shape. */
export function requestBody(model: string, prompt: string, n: number, size: string): Record<string, unknown> {
  // gpt-image models always answer base64 and refuse `response_format`; the others need it.
  if (model.startsWith('gpt-image')) return { model, prompt, n, size, output_format: 'png' };
  return { model, prompt, n, size, response_format: 'b64_json' };
}

function providerMessage(body: unknown): string | null {
  try {
    const parsed = parseProviderJson(String(body)) as { error?: { message?: unknown } };
    return typeof parsed.error?.message === 'string' ? parsed.error.message.slice(0, 300) : null;
  } catch {
    return null;
  }
}

function failure({ HTTPError, RequestError }: typeof import('got'), err: unknown, timeoutMs: number): ImageProviderError {
  if (err instanceof HTTPError) {
    const status = err.response.statusCode;
    if (status === 401 || status === 403) return new ImageProviderError(`the image provider refused the credentials (HTTP ${status})`, false);
    if (status === 429) {
      const after = err.response.headers['retry-after'];
      return new ImageProviderError(`the image provider is rate limiting (HTTP 429${after ? `, retry after ${after} s` : ''})`, true);
    }
    if (status >= 500) return new ImageProviderError(`the image provider failed (HTTP ${status})`, true);
    const detail = providerMessage(err.response.body);
    return new ImageProviderError(`the image provider refused the request (HTTP ${status})${detail ? `: ${detail}` : ''}`, false);
  }
  if (err instanceof RequestError) {
    if (err.name === 'TimeoutError' || err.code === 'ETIMEDOUT') return new ImageProviderError(`the image provider did not answer within ${timeoutMs / 1000} s`, true);
    if (err.name === 'AbortError' || err.code === 'ERR_ABORTED') return new ImageProviderError('the image request was aborted', true);
    return new ImageProviderError(`the image provider could not be reached (${err.code ?? 'network error'})`, true);
  }
  if (err instanceof ImageProviderError) return err;
  return new ImageProviderError('the image provider call failed', true);
}

/** Decodes one answered image and brings it to the size asked for, off the event loop. */
async function toImage(cpu: CpuPool, b64: unknown, width: number, height: number): Promise<GeneratedImage> {
  if (typeof b64 !== 'string' || !b64) throw new ImageProviderError('the image provider answered without b64_json image data', true);
  const png = await cpu.run(FIT_PNG, { bytes: Buffer.from(b64, 'base64'), width, height }, imageLimits);
  if (!png) throw new ImageProviderError('the image provider answered with an image that is not a PNG', false);
  return { png: asBuffer(png), width, height };
}

/** Any OpenAI-compatible images API: `POST {url}/images/generations`, base64 answers. */
export function openAiImages(opts: OpenAiImagesOptions): ImageProvider {
  const endpoint = `${opts.url}/images/generations`;
  async function call(prompt: string, n: number, size: string, signal: AbortSignal): Promise<unknown[]> {
    const gotModule = await loadGot();
    const request = gotModule.default.post(endpoint, {
      body: JSON.stringify(requestBody(opts.model, prompt, n, size)),
      headers: { authorization: `Bearer ${opts.apiKey}`, 'content-type': 'application/json', accept: 'application/json' },
      timeout: { request: opts.timeoutMs },
      retry: { limit: 0 },
      followRedirect: false,
      responseType: 'text',
      signal,
    });
    request.on('downloadProgress', (p: { transferred: number }) => {
      if (p.transferred > MAX_RESPONSE_BYTES) request.cancel('the image provider answer is too large');
    });
    let text: string;
    try {
      text = (await request).body;
    } catch (err) {
      throw failure(gotModule, err, opts.timeoutMs);
    }
    let data: unknown;
    try {
      data = (JSON.parse(text) as { data?: unknown }).data;
    } catch {
      throw new ImageProviderError('the image provider answered with something other than JSON', true);
    }
    if (!Array.isArray(data) || data.length < n) throw new ImageProviderError('the image provider answered with fewer images than asked for', true);
    return data.slice(0, n).map((d) => (d as { b64_json?: unknown } | null)?.b64_json);
  }
  return {
    name: 'openai',
    model: opts.model,
    async generate(req: ImageRequest, signal: AbortSignal): Promise<GeneratedImage[]> {
      const size = requestSize(opts.model, req.width, req.height);
      // dall-e-3 makes one image per request.
      const batches = opts.model === 'dall-e-3' ? Array.from({ length: req.n }, () => 1) : [req.n];
      const out: GeneratedImage[] = [];
      for (const n of batches) {
        for (const b64 of await call(req.prompt, n, size, signal)) out.push(await toImage(opts.cpu, b64, req.width, req.height));
      }
      return out;
    },
  };
}

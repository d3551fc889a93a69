/**
 * Image providers (CONTRACT-2 §16): one interface for the offline `local` renderer and any
 * OpenAI-compatible images API. A provider returns PNG bytes of exactly the size asked for.
 */
export interface ImageRequest {
  prompt: string;
  width: number;
  height: number;
  /** Images to make, 1..4. */
  n: number;
  /** Image i is drawn with seed + i (providers without seeds ignore it). */
  seed: number;
}

export interface GeneratedImage {
  png: Buffer;
  width: number;
  height: number;
}

export interface ImageProvider {
  readonly name: 'local' | 'openai';
  readonly model: string;
  generate(req: ImageRequest, signal: AbortSignal): Promise<GeneratedImage[]>;
}

/** A failed generation attempt; `retryable` says whether another attempt may succeed. */
export class ImageProviderError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'ImageProviderError';
  }
}

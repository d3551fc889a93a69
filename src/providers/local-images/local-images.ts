import type { GeneratedImage, ImageProvider, ImageRequest } from '../images.js';
import { drawImage } from './draw.js';

/** Offline and deterministic: image i is drawn from the prompt and seed + i. */
export function localImages(): ImageProvider {
  return {
    name: 'local',
    model: 'souk-local-1',
    async generate(req: ImageRequest, signal: AbortSignal): Promise<GeneratedImage[]> {
      const out: GeneratedImage[] = [];
      for (let i = 0; i < req.n; i++) {
        signal.throwIfAborted();
        out.push({ png: drawImage(req.prompt, req.seed + i, req.width, req.height), width: req.width, height: req.height });
        // Drawing is synchronous: let other work run between images.
        await new Promise((r) => setImmediate(r));
      }
      return out;
    },
  };
}

import type { GeneratedImage, ImageProvider, ImageRequest } from '../images.js';
import type { CpuPool } from '../../core/cpu.js';
import { drawImageOffThread } from './draw.js';

/** Offline and deterministic: image i is drawn from the prompt and seed + i, in the CPU pool. */
export function localImages(cpu: CpuPool): ImageProvider {
  return {
    name: 'local',
    model: 'souk-local-1',
    async generate(req: ImageRequest, signal: AbortSignal): Promise<GeneratedImage[]> {
      const out: GeneratedImage[] = [];
      for (let i = 0; i < req.n; i++) {
        signal.throwIfAborted();
        out.push({ png: await drawImageOffThread(cpu, { prompt: req.prompt, seed: req.seed + i, width: req.width, height: req.height }), width: req.width, height: req.height });
      }
      return out;
    },
  };
}

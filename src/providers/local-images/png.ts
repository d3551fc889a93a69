import { PNG } from 'pngjs';
import { cpuTask } from '../../core/cpu.js';

/** An RGBA canvas written as an RGB PNG; the same pixels always give the same bytes. */
export class Canvas {
  readonly data: Buffer;

  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    this.data = Buffer.alloc(width * height * 4, 255);
  }

  /** Blends `rgb` over the pixel with coverage `alpha` (0..1). */
  blend(x: number, y: number, rgb: readonly [number, number, number], alpha: number): void {
    if (alpha <= 0) return;
    const i = (y * this.width + x) * 4;
    const a = alpha >= 1 ? 1 : alpha;
    this.data[i] = Math.round(this.data[i] + (rgb[0] - this.data[i]) * a);
    this.data[i + 1] = Math.round(this.data[i + 1] + (rgb[1] - this.data[i + 1]) * a);
    this.data[i + 2] = Math.round(this.data[i + 2] + (rgb[2] - this.data[i + 2]) * a);
  }

  set(x: number, y: number, rgb: readonly [number, number, number]): void {
    const i = (y * this.width + x) * 4;
    this.data[i] = rgb[0];
    this.data[i + 1] = rgb[1];
    this.data[i + 2] = rgb[2];
    this.data[i + 3] = 255;
  }

  toPng(): Buffer {
    const png = new PNG({ width: this.width, height: this.height });
    this.data.copy(png.data);
    return PNG.sync.write(png, { colorType: 2 });
  }
}

/** Decodes a PNG; throws on anything else. */
export function readPng(bytes: Buffer): { width: number; height: number; data: Buffer } {
  const png = PNG.sync.read(bytes);
  return { width: png.width, height: png.height, data: png.data };
}

/**
 * Scales an image to cover `width`×`height` (bilinear) and crops the overflow evenly, so a
 * provider that only makes fixed sizes still yields the size asked for.
 */
export function coverResize(src: { width: number; height: number; data: Buffer }, width: number, height: number): Buffer {
  const canvas = new Canvas(width, height);
  const scale = Math.max(width / src.width, height / src.height);
  const offX = (src.width * scale - width) / 2;
  const offY = (src.height * scale - height) / 2;
  // Transparent pixels are composited over white: the stored PNG has no alpha.
  const px = (x: number, y: number, c: number) => {
    const i = (y * src.width + x) * 4;
    const a = src.data[i + 3] / 255;
    return src.data[i + c] * a + 255 * (1 - a);
  };
  for (let y = 0; y < height; y++) {
    const sy = Math.min(src.height - 1, Math.max(0, (y + offY + 0.5) / scale - 0.5));
    const y0 = Math.floor(sy);
    const y1 = Math.min(src.height - 1, y0 + 1);
    const fy = sy - y0;
    for (let x = 0; x < width; x++) {
      const sx = Math.min(src.width - 1, Math.max(0, (x + offX + 0.5) / scale - 0.5));
      const x0 = Math.floor(sx);
      const x1 = Math.min(src.width - 1, x0 + 1);
      const fx = sx - x0;
      const rgb = [0, 1, 2].map((c) => {
        const top = px(x0, y0, c) * (1 - fx) + px(x1, y0, c) * fx;
        const bottom = px(x0, y1, c) * (1 - fx) + px(x1, y1, c) * fx;
        return Math.round(top * (1 - fy) + bottom * fy);
      }) as [number, number, number];
      canvas.set(x, y, rgb);
    }
  }
  return canvas.toPng();
}

export const FIT_PNG = cpuTask<{ bytes: Uint8Array; width: number; height: number }, Uint8Array | null>('images.fitPng');

/** The PNG brought to `width`×`height` (cover and crop); null when the bytes are not a PNG. */
export function fitPngTask({ bytes, width, height }: { bytes: Uint8Array; width: number; height: number }): Uint8Array | null {
  let decoded: ReturnType<typeof readPng>;
  try {
    decoded = readPng(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  } catch {
    return null;
  }
  return decoded.width === width && decoded.height === height ? bytes : coverResize(decoded, width, height);
}

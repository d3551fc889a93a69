import { createHash } from 'node:crypto';
import { asBuffer, cpuTask, type CpuPool } from '../../core/cpu.js';
import { ImageProviderError } from '../images.js';
import { Canvas } from './png.js';

export type Rgb = [number, number, number];

/** sfc32 seeded from SHA-256 of the inputs: the same inputs give the same sequence on every platform. */
export function randomFrom(...parts: Array<string | number>): () => number {
  const h = createHash('sha256').update(parts.join('\u0000')).digest();
  let a = h.readUInt32LE(0);
  let b = h.readUInt32LE(4);
  let c = h.readUInt32LE(8);
  let d = h.readUInt32LE(12);
  const next = () => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    const t = (a + b + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();
  return next;
}

export function hsl(h: number, s: number, l: number): Rgb {
  const hue = ((h % 360) + 360) % 360;
  const c = (1 - Math.abs(2 * l - 1)) * s;
  const x = c * (1 - Math.abs(((hue / 60) % 2) - 1));
  const m = l - c / 2;
  const [r, g, b] = hue < 60 ? [c, x, 0] : hue < 120 ? [x, c, 0] : hue < 180 ? [0, c, x] : hue < 240 ? [0, x, c] : hue < 300 ? [x, 0, c] : [c, 0, x];
  return [Math.round((r + m) * 255), Math.round((g + m) * 255), Math.round((b + m) * 255)];
}

export function toHex(rgb: Rgb): string {
  return `#${rgb.map((v) => v.toString(16).padStart(2, '0')).join('')}`;
}

export function fromHex(hex: string): Rgb {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

function rgbToHue(rgb: Rgb): number {
  const [r, g, b] = rgb.map((v) => v / 255);
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  if (max === min) return 0;
  const d = max - min;
  const h = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  return h * 60;
}

/**
 * A five-colour palette for a prompt and seed: the brief's colours first (up to five), the
 * rest harmonies around a base hue taken from the first given colour or from the prompt.
 */
export function derivePalette(prompt: string, seed: number, given: readonly string[] = []): string[] {
  const rnd = randomFrom('palette', prompt, seed);
  const out = given.slice(0, 5).map((c) => c.toLowerCase());
  const base = given.length ? rgbToHue(fromHex(given[0])) : rnd() * 360;
  const scheme = [0, 30, 150, 180, 210, 330, 60, 270][Math.floor(rnd() * 8)];
  const steps = [
    { h: base + scheme, s: 0.55 + rnd() * 0.3, l: 0.45 + rnd() * 0.1 },
    { h: base - scheme / 2, s: 0.35 + rnd() * 0.3, l: 0.25 + rnd() * 0.1 },
    { h: base + 180, s: 0.5 + rnd() * 0.3, l: 0.55 + rnd() * 0.1 },
    { h: base + 15, s: 0.15 + rnd() * 0.2, l: 0.9 + rnd() * 0.05 },
    { h: base, s: 0.6 + rnd() * 0.3, l: 0.35 + rnd() * 0.15 },
  ];
  for (let i = 0; out.length < 5; i++) {
    const hex = toHex(hsl(steps[i % steps.length].h + i * 7, steps[i % steps.length].s, steps[i % steps.length].l));
    if (!out.includes(hex)) out.push(hex);
  }
  return out;
}

/** Equal vertical stripes, one per colour. */
export function drawSwatch(colors: readonly string[], width: number, height: number): Buffer {
  const canvas = new Canvas(width, height);
  const rgbs = colors.map(fromHex);
  for (let x = 0; x < width; x++) {
    const rgb = rgbs[Math.min(rgbs.length - 1, Math.floor((x * rgbs.length) / width))];
    for (let y = 0; y < height; y++) canvas.set(x, y, rgb);
  }
  return canvas.toPng();
}

type Shape =
  | { kind: 'circle'; cx: number; cy: number; r: number; rgb: Rgb; alpha: number }
  | { kind: 'ring'; cx: number; cy: number; r: number; w: number; rgb: Rgb; alpha: number }
  | { kind: 'rect'; x0: number; y0: number; x1: number; y1: number; radius: number; rgb: Rgb; alpha: number };

/** Signed distance to a shape's edge (negative inside), for one-pixel anti-aliased edges. */
function distance(s: Shape, x: number, y: number): number {
  switch (s.kind) {
    case 'circle':
      return Math.hypot(x - s.cx, y - s.cy) - s.r;
    case 'ring':
      return Math.abs(Math.hypot(x - s.cx, y - s.cy) - s.r) - s.w / 2;
    case 'rect': {
      const hx = (s.x1 - s.x0) / 2;
      const hy = (s.y1 - s.y0) / 2;
      const qx = Math.abs(x - (s.x0 + hx)) - hx + s.radius;
      const qy = Math.abs(y - (s.y0 + hy)) - hy + s.radius;
      return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - s.radius;
    }
  }
}

function bounds(s: Shape): [number, number, number, number] {
  if (s.kind === 'rect') return [s.x0, s.y0, s.x1, s.y1];
  const r = s.kind === 'ring' ? s.r + s.w : s.r;
  return [s.cx - r, s.cy - r, s.cx + r, s.cy + r];
}

/**
 * A deterministic abstract image for a prompt: a two-colour gradient and a handful of soft
 * shapes, all chosen by a generator seeded with the prompt, the seed and the size.
 */
export function drawImage(prompt: string, seed: number, width: number, height: number): Buffer {
  const rnd = randomFrom('image', prompt, seed, width, height);
  const hue = rnd() * 360;
  const from = hsl(hue, 0.45 + rnd() * 0.4, 0.35 + rnd() * 0.3);
  const to = hsl(hue + 40 + rnd() * 140, 0.45 + rnd() * 0.4, 0.45 + rnd() * 0.3);
  const angle = rnd() * Math.PI * 2;
  const dx = Math.cos(angle);
  const dy = Math.sin(angle);
  const span = Math.abs(dx) * width + Math.abs(dy) * height;
  const canvas = new Canvas(width, height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const t = Math.min(1, Math.max(0, ((x - width / 2) * dx + (y - height / 2) * dy) / span + 0.5));
      canvas.set(x, y, [
        Math.round(from[0] + (to[0] - from[0]) * t),
        Math.round(from[1] + (to[1] - from[1]) * t),
        Math.round(from[2] + (to[2] - from[2]) * t),
      ]);
    }
  }
  const unit = Math.min(width, height);
  const count = 3 + Math.floor(rnd() * 5);
  const shapes: Shape[] = [];
  for (let i = 0; i < count; i++) {
    const rgb = hsl(hue + (rnd() - 0.5) * 240, 0.4 + rnd() * 0.5, 0.3 + rnd() * 0.55);
    const alpha = 0.45 + rnd() * 0.5;
    const cx = rnd() * width;
    const cy = rnd() * height;
    const size = unit * (0.08 + rnd() * 0.35);
    const pick = rnd();
    if (pick < 0.4) shapes.push({ kind: 'circle', cx, cy, r: size, rgb, alpha });
    else if (pick < 0.7) shapes.push({ kind: 'ring', cx, cy, r: size, w: Math.max(2, size * (0.1 + rnd() * 0.3)), rgb, alpha });
    else {
      const w = size * (1 + rnd());
      const h = size * (0.5 + rnd());
      shapes.push({ kind: 'rect', x0: cx - w / 2, y0: cy - h / 2, x1: cx + w / 2, y1: cy + h / 2, radius: Math.min(w, h) * rnd() * 0.4, rgb, alpha });
    }
  }
  for (const s of shapes) {
    const [bx0, by0, bx1, by1] = bounds(s);
    const x0 = Math.max(0, Math.floor(bx0) - 1);
    const y0 = Math.max(0, Math.floor(by0) - 1);
    const x1 = Math.min(width - 1, Math.ceil(bx1) + 1);
    const y1 = Math.min(height - 1, Math.ceil(by1) + 1);
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const coverage = 0.5 - distance(s, x + 0.5, y + 0.5);
        if (coverage > 0) canvas.blend(x, y, s.rgb, s.alpha * Math.min(1, coverage));
      }
    }
  }
  return canvas.toPng();
}

export interface DrawRequest {
  prompt: string;
  seed: number;
  width: number;
  height: number;
}

export const DRAW_IMAGE = cpuTask<DrawRequest, Uint8Array>('images.draw');
export const drawImageTask = (r: DrawRequest): Uint8Array => drawImage(r.prompt, r.seed, r.width, r.height);

export const DRAW_SWATCH = cpuTask<{ colors: string[]; width: number; height: number }, Uint8Array>('images.swatch');
export const drawSwatchTask = (r: { colors: string[]; width: number; height: number }): Uint8Array => drawSwatch(r.colors, r.width, r.height);

/**
 * Limits of image work in the pool: a 1536×512 drawing takes a fraction of a second; generation
 * jobs wait for a thread as long as their attempt may last, as nobody waits on them.
 */
export const imageLimits = {
  timeoutMs: 30_000,
  queueWaitMs: 60_000,
  overBudget: () => new ImageProviderError('drawing the image took longer than 30 s', false),
};

export const drawImageOffThread = async (cpu: CpuPool, r: DrawRequest): Promise<Buffer> => asBuffer(await cpu.run(DRAW_IMAGE, r, imageLimits));

export const drawSwatchOffThread = async (cpu: CpuPool, colors: string[], width: number, height: number): Promise<Buffer> =>
  asBuffer(await cpu.run(DRAW_SWATCH, { colors, width, height }, imageLimits));

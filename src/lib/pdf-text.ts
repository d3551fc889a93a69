import { createRequire } from 'node:module';
import type { Bidi } from 'bidi-js';

/**
 * Bidirectional text for pdfkit, which has none: fontkit shapes a string and reverses the glyphs
 * of a right-to-left script, so a mixed line given as is comes out with its words in logical
 * order and digits glued to Arabic letters reversed ("رقم24" drawn as "42"). Each line is
 * reordered here with the Unicode Bidirectional Algorithm (bidi-js, mirroring brackets at
 * right-to-left levels), then cut into runs drawn left to right: runs of right-to-left script
 * letters go back to logical order (fontkit shapes and reverses them itself), everything else
 * (Latin, digits, punctuation) is drawn in visual order as is.
 */

// The package is CommonJS whose module.exports is the factory (its typings describe an ES
// default); required on first use, with the rest of the PDF code.
let bidiInstance: Bidi | undefined;
const bidi = (): Bidi => (bidiInstance ??= (createRequire(import.meta.url)('bidi-js') as () => Bidi)());

/** Characters of right-to-left scripts: Hebrew, Arabic and their presentation forms. */
const RTL_SCRIPT = /[\u0590-\u05FF\u0600-\u06FF\u0750-\u077F\u08A0-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/;

export interface VisualRun {
  text: string;
  /** True: a right-to-left script run, in logical order for the shaper. */
  rtl: boolean;
}

export interface VisualLine {
  runs: VisualRun[];
  /** The paragraph direction the algorithm resolved (first strong character). */
  rtl: boolean;
}

/** One line (no line breaks) as runs in drawing order, left to right. */
export function visualLine(line: string): VisualLine {
  if (!line) return { runs: [], rtl: false };
  const levels = bidi().getEmbeddingLevels(line, 'auto');
  const chars = line.split('');
  for (const [i, mirrored] of bidi().getMirroredCharactersMap(line, levels.levels)) chars[i] = mirrored;
  const visual = bidi().getReorderedIndices(line, levels).map((i) => chars[i]);
  // A reversed surrogate pair is low-high: put it back.
  for (let i = 0; i + 1 < visual.length; i++) {
    if (/[\uDC00-\uDFFF]/.test(visual[i]) && /[\uD800-\uDBFF]/.test(visual[i + 1])) [visual[i], visual[i + 1]] = [visual[i + 1], visual[i]];
  }
  const runs: VisualRun[] = [];
  for (const ch of visual) {
    const rtl = RTL_SCRIPT.test(ch);
    const last = runs[runs.length - 1];
    if (last && last.rtl === rtl) last.text += ch;
    else runs.push({ text: ch, rtl });
  }
  for (const run of runs) if (run.rtl) run.text = run.text.split('').reverse().join('');
  return { runs, rtl: (levels.paragraphs[0]?.level ?? 0) % 2 === 1 };
}

export type Align = 'left' | 'right' | 'center' | 'auto';

/** Width of a logical line once drawn. */
export function lineWidth(doc: PDFKit.PDFDocument, line: string): number {
  return visualLine(line).runs.reduce((w, r) => w + doc.widthOfString(r.text), 0);
}

/**
 * Draws one line at (x, y) within `width`; `auto` aligns right-to-left paragraphs right.
 * Never breaks the line or the page (the layout decided both).
 */
export function drawLine(doc: PDFKit.PDFDocument, line: string, x: number, y: number, width: number, align: Align = 'auto'): void {
  const { runs, rtl } = visualLine(line);
  const widths = runs.map((r) => doc.widthOfString(r.text));
  const total = widths.reduce((a, b) => a + b, 0);
  const side = align === 'auto' ? (rtl ? 'right' : 'left') : align;
  let cx = side === 'right' ? x + width - total : side === 'center' ? x + (width - total) / 2 : x;
  runs.forEach((r, i) => {
    doc.text(r.text, cx, y, { lineBreak: false });
    cx += widths[i];
  });
}

/** Breaks logical text into lines that fit `width` (at spaces; an over-long word by characters). */
export function wrapText(doc: PDFKit.PDFDocument, text: string, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split(/\r?\n/)) {
    let current = '';
    for (const word of paragraph.split(/ +/)) {
      const candidate = current ? `${current} ${word}` : word;
      if (lineWidth(doc, candidate) <= width) {
        current = candidate;
        continue;
      }
      if (current) lines.push(current);
      current = '';
      let piece = '';
      for (const ch of word) {
        if (piece && lineWidth(doc, piece + ch) > width) {
          lines.push(piece);
          piece = '';
        }
        piece += ch;
      }
      current = piece;
    }
    lines.push(current);
  }
  return lines;
}

/** Draws wrapped text; returns the height used. */
export function drawText(doc: PDFKit.PDFDocument, text: string, x: number, y: number, width: number, align: Align = 'auto', lineGap = 2): number {
  const lines = wrapText(doc, text, width);
  const step = doc.currentLineHeight() + lineGap;
  lines.forEach((line, i) => drawLine(doc, line, x, y + i * step, width, align));
  return lines.length * step;
}

/** The height `drawText` would use. */
export function textHeight(doc: PDFKit.PDFDocument, text: string, width: number, lineGap = 2): number {
  return wrapText(doc, text, width).length * (doc.currentLineHeight() + lineGap);
}

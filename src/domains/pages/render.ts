import { Marked } from 'marked';
import { createRequire } from 'node:module';
import type sanitizeHtml from 'sanitize-html';
import { cpuTask, type CpuOwner, type CpuPool, type OverBudget } from '../../core/cpu.js';
import { invalid } from '../../core/errors.js';

/** A private instance: no other code's `marked.use()` changes how pages render. */
const markdown = new Marked({ gfm: true, breaks: false, async: false });

/**
 * What a rendered page may contain: text formatting, links, images, tables and code. No
 * script, style, iframe, form or SVG; no event handler or style attribute; links only to
 * http(s), mailto and tel, images only from http(s).
 */
const POLICY: sanitizeHtml.IOptions = {
  allowedTags: [
    'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'br', 'hr', 'blockquote', 'pre', 'code', 'em', 'strong', 'del', 's', 'sub', 'sup',
    'ul', 'ol', 'li', 'a', 'img', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'span', 'div', 'abbr', 'kbd', 'mark', 'small', 'input',
  ],
  allowedAttributes: {
    // `rel` is what the transform below sets; a client's own `rel` is overwritten.
    a: ['href', 'title', 'rel'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    code: ['class'],
    th: ['align'],
    td: ['align'],
    ol: ['start'],
    // GFM task lists render disabled checkboxes.
    input: ['type', 'checked', 'disabled'],
  },
  allowedClasses: { code: [/^language-[\w-]+$/] },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  exclusiveFilter: (frame) => frame.tag === 'input' && frame.attribs.type !== 'checkbox',
  transformTags: {
    a: (tagName, attribs) => ({ tagName, attribs: { ...attribs, rel: 'nofollow noopener noreferrer' } }),
    input: (tagName, attribs) => ({ tagName, attribs: { ...attribs, disabled: '' } }),
  },
};

// Required when first needed (a pool thread, before its first render's deadline counts): the sanitizer and its HTML parser are slow to load.
let sanitizer: typeof sanitizeHtml | undefined;
export const loadSanitizer = () => (sanitizer ??= createRequire(import.meta.url)('sanitize-html') as typeof sanitizeHtml);

/** Markdown (raw HTML included, as authors write it) to HTML safe to serve to any browser. */
export function renderMarkdown(source: string): string {
  return loadSanitizer()(markdown.parse(source) as string, POLICY);
}

/**
 * Block quotes and lists nest by recursion in the parser: a body nesting deeper than this is
 * refused before rendering (">" × 3,000 overflowed the parser's stack).
 */
export const MAX_NESTING = 64;

/** A block quote or list item marker opening a line (or the rest of one: containers chain). */
const CONTAINER = /^[ \t]*(?:>|(?:[-*+]|\d{1,9}[.)])(?=[ \t]|$))[ \t]?/;

/**
 * The deepest nesting of block quotes and list items a line opens (up to MAX_NESTING + 1): the
 * containers chained at its start (`> - > 1. ...`), plus the levels its indentation puts the
 * first of them in.
 */
export function nestingDepth(source: string): number {
  let deepest = 0;
  for (const line of source.split('\n')) {
    let rest = line;
    let depth = 0;
    for (let m = CONTAINER.exec(rest); m; m = CONTAINER.exec(rest)) {
      if (depth === 0) depth = Math.floor(/^[ \t]*/.exec(rest)![0].replace(/\t/g, '    ').length / 2);
      // Past the limit the answer is known: stop before a long line costs more.
      if (++depth > MAX_NESTING) return depth;
      rest = rest.slice(m[0].length);
    }
    deepest = Math.max(deepest, depth);
  }
  return deepest;
}

export const RENDER_PAGE = cpuTask<string, string>('pages.render');

/** What the pool runs: the nesting check, then the rendering. */
export function renderPage(source: string): string {
  if (nestingDepth(source) > MAX_NESTING) throw invalid('body', `nests block quotes or lists more than ${MAX_NESTING} levels deep`);
  return renderMarkdown(source);
}

/**
 * A page may take this long to render. A 256 KiB body of ordinary Markdown renders in well under
 * a second; bodies built to make the parser work quadratically ("*a" × 49,000) take many.
 */
export const RENDER_TIME_LIMIT_MS = 5_000;

const OVER: Record<OverBudget, string> = {
  time: `takes longer than ${RENDER_TIME_LIMIT_MS / 1000} s to render: simplify its Markdown`,
  depth: 'nests too deeply to render: simplify its Markdown',
  memory: 'needs too much memory to render: simplify its Markdown',
};

/**
 * Emphasis marks (`*`, `_`, `~`) crowded into one paragraph make the parser's work grow with the
 * square of their number ("*a" × 49,000 takes seconds, "*a" and a line break × 4,000 as long),
 * and link openings (`](`) with the cube ("[a](" × 1,000 takes seconds). A paragraph of this many
 * marks, or of this many openings, renders within a second or two on one thread.
 */
export const MAX_EMPHASIS_MARKS = 2_000;
export const MAX_LINK_OPENINGS = 250;

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/** A line that starts a block of its own: its inline text is parsed apart from the lines before it. */
const BLOCK_START = /^[ \t]*$|^ {0,3}(?:#|\|)/;

/**
 * The parser's inline work a body asks for, as a share of what one paragraph of
 * MAX_EMPHASIS_MARKS marks (or MAX_LINK_OPENINGS openings) costs, summed over its paragraphs,
 * list items, quotes and table rows (fenced code is not parsed inline). Linear in the body.
 */
export function inlineWork(source: string): number {
  let work = 0;
  let marks = 0;
  let links = 0;
  let fence = '';
  const end = () => {
    work += (marks / MAX_EMPHASIS_MARKS) ** 2 + (links / MAX_LINK_OPENINGS) ** 3;
    marks = links = 0;
  };
  for (const line of source.split('\n')) {
    const f = FENCE.exec(line)?.[1];
    if (fence) {
      if (f && f[0] === fence[0] && f.length >= fence.length) fence = '';
      continue;
    }
    if (f || BLOCK_START.test(line) || CONTAINER.test(line)) end();
    if (f) {
      fence = f;
      continue;
    }
    for (let i = 0; i < line.length; i++) {
      const c = line[i];
      if (c === '\\') i++;
      else if (c === '*' || c === '_' || c === '~') marks++;
      else if (c === ']' && line[i + 1] === '(') links++;
    }
  }
  end();
  return work;
}

/**
 * The body's HTML, rendered off the event loop for `owner` (a request; none for a queue job). A
 * body built to make the parser work (inlineWork past one paragraph's worth) is refused before
 * it takes a thread; one that cannot be rendered within budget → 400 at `body` as well.
 */
export function renderBody(cpu: CpuPool, source: string, owner?: CpuOwner): Promise<string> {
  if (inlineWork(source) > 1) {
    return Promise.reject(invalid('body', `crowds too many emphasis marks (*, _, ~) or link openings into its paragraphs to render: split the paragraphs or escape the marks (\\*)`));
  }
  return cpu.run(RENDER_PAGE, source, { timeoutMs: RENDER_TIME_LIMIT_MS, overBudget: (reason) => invalid('body', OVER[reason]), owner });
}

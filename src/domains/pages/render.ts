import { Marked } from 'marked';
import { createRequire } from 'node:module';
import type sanitizeHtml from 'sanitize-html';

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

// Required on the first page rendered: the sanitizer and its HTML parser are slow to load.
let sanitizer: typeof sanitizeHtml | undefined;

/** Markdown (raw HTML included, as authors write it) to HTML safe to serve to any browser. */
export function renderMarkdown(source: string): string {
  sanitizer ??= createRequire(import.meta.url)('sanitize-html') as typeof sanitizeHtml;
  return sanitizer(markdown.parse(source) as string, POLICY);
}

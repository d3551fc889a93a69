import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Arrows run down (docs/architecture.md): the import graph of `src/` and `rest-compat/` has no
 * cycle, between folders or between files. A folder is `src/domains/<d>/`, `src/<top>/`,
 * `rest-compat/` (routes included) or a single top-level file; relative imports count, type-only
 * ones too (they tie the layers together all the same). The same analysis as the shared
 * `layers.py`, so both give the same numbers.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const IMPORT = /(?:import|export)\s[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/**
 * Folder edges inside a cycle that are known and being removed, each with its reason. An edge in
 * a cycle that is not listed fails the test, and so does a listed edge that no longer is in one.
 */
const KNOWN: Record<string, string> = {};
/** File cycles (files joined by a space, sorted) known and being removed. */
const KNOWN_FILE_CYCLES: Record<string, string> = {};

function sourceFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(ROOT, dir))) {
      const rel = join(dir, name);
      if (statSync(join(ROOT, rel)).isDirectory()) walk(rel);
      else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(rel);
    }
  };
  for (const top of ['src', 'rest-compat']) walk(top);
  return out.sort();
}

function room(path: string): string {
  const p = path.split('/');
  if (p[0] === 'rest-compat') return 'rest-compat/';
  if (p[0] === 'src' && p.length > 3 && p[1] === 'domains') return `src/domains/${p[2]}/`;
  if (p[0] === 'src' && p.length > 2) return `src/${p[1]}/`;
  return path;
}

function resolveImport(from: string, spec: string): string | null {
  const base = normalize(join(dirname(from), spec));
  for (const cand of [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')]) {
    if (cand.endsWith('.ts') && existsSync(join(ROOT, cand)) && statSync(join(ROOT, cand)).isFile()) return cand;
  }
  return null;
}

/** Strongly connected components of more than one node (Tarjan), each sorted. */
function cycles(nodes: string[], adj: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const on = new Set<string>();
  const stack: string[] = [];
  const out: string[][] = [];
  let n = 0;
  const visit = (v: string) => {
    index.set(v, n);
    low.set(v, n++);
    stack.push(v);
    on.add(v);
    for (const w of adj.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1) out.push(c.sort());
    }
  };
  for (const v of nodes) if (!index.has(v)) visit(v);
  return out;
}

function analyse() {
  const files = sourceFiles();
  const edges = new Map<string, Set<string>>();
  for (const f of files) {
    const text = readFileSync(join(ROOT, f), 'utf8');
    for (const m of text.matchAll(IMPORT)) {
      const t = resolveImport(f, m[1] ?? m[2]);
      if (t && t !== f) {
        if (!edges.has(f)) edges.set(f, new Set());
        edges.get(f)!.add(t);
      }
    }
  }
  const folderAdj = new Map<string, Set<string>>();
  const why = new Map<string, string>();
  for (const [a, ts] of edges) {
    for (const b of ts) {
      const ra = room(a);
      const rb = room(b);
      if (ra === rb) continue;
      if (!folderAdj.has(ra)) folderAdj.set(ra, new Set());
      folderAdj.get(ra)!.add(rb);
      if (!why.has(`${ra} -> ${rb}`)) why.set(`${ra} -> ${rb}`, `${a} -> ${b}`);
    }
  }
  const inCycle: string[] = [];
  for (const c of cycles([...new Set(files.map(room))].sort(), folderAdj)) {
    for (const a of c) for (const b of folderAdj.get(a) ?? []) if (c.includes(b)) inCycle.push(`${a} -> ${b}`);
  }
  return { files, inCycle: inCycle.sort(), why, fileCycles: cycles(files, edges).map((c) => c.join(' ')) };
}

test('no folder and no file of src/ and rest-compat/ is in an import cycle', () => {
  const { files, inCycle, why, fileCycles } = analyse();
  assert.ok(files.length > 200 && files.includes('src/service.ts'), `read ${files.length} files from ${relative(process.cwd(), ROOT) || '.'}`);
  console.log(`layers: ${inCycle.length} folder edges in cycles, ${fileCycles.length} file cycles`);
  const unknown = inCycle.filter((e) => !(e in KNOWN)).map((e) => `${e} (${why.get(e)})`);
  assert.deepEqual(unknown, [], 'these imports close a cycle between folders: turn the arrow down (a hook, a composition list, a lower helper folder)');
  assert.deepEqual(Object.keys(KNOWN).filter((e) => !inCycle.includes(e)), [], 'no longer in a cycle: remove from KNOWN');
  assert.deepEqual(fileCycles.filter((c) => !(c in KNOWN_FILE_CYCLES)), [], 'these files import each other');
  assert.deepEqual(Object.keys(KNOWN_FILE_CYCLES).filter((c) => !fileCycles.includes(c)), [], 'no longer a cycle: remove from KNOWN_FILE_CYCLES');
});

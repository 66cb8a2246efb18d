/**
 * The source tree's static imports, read as text: each file under src/ and the files it imports
 * (`import … from`, `export … from`, type-only imports included), and the packages it imports. Dynamic `import()` is left out
 * on purpose: it is how the CLI loads the server only when `serve` runs.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export const ROOT = resolve(new URL('../..', import.meta.url).pathname);
const STATIC_IMPORT = /^\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]/gm;
const SIDE_EFFECT_IMPORT = /^\s*import\s*['"]([^'"]+)['"]/gm;
const isRelative = (spec: string) => spec.startsWith('./') || spec.startsWith('../');

/** What a file's static imports name, relative paths and packages alike. */
function specifiers(text: string): string[] {
  return [...text.matchAll(STATIC_IMPORT), ...text.matchAll(SIDE_EFFECT_IMPORT)].map((m) => m[1]!);
}

/** The packages a source file (as `src/…`) imports statically: `jose`, `node:fs`. */
export function importedPackages(file: string): string[] {
  return specifiers(readFileSync(join(ROOT, file), 'utf8')).filter((spec) => !isRelative(spec));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(entry.name) && !/\.(test|suite|fixture)\.ts$/.test(entry.name) ? [path] : [];
  });
}

/** Each source file (as `src/…`) and the source files it imports. */
export function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(join(ROOT, 'src'))) {
    const text = readFileSync(file, 'utf8');
    const specs = specifiers(text).filter(isRelative);
    const targets = specs.map((spec) => relative(ROOT, resolve(dirname(file), spec)).replace(/\.js$/, '.ts'));
    graph.set(relative(ROOT, file), targets);
  }
  return graph;
}

/** Every file `roots` reach through static imports, with the path that first reached it. */
export function reach(graph: Map<string, string[]>, roots: readonly string[]): Map<string, string[]> {
  const paths = new Map<string, string[]>(roots.map((r) => [r, [r]]));
  const queue = [...roots];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const next of graph.get(file) ?? []) {
      if (paths.has(next)) continue;
      paths.set(next, [...paths.get(file)!, next]);
      queue.push(next);
    }
  }
  return paths;
}

/** The import circles: each set of two or more files that reach each other, its files sorted (Tarjan's algorithm). */
export function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) visit(next);
      if (stack.includes(next)) low.set(file, Math.min(low.get(file)!, low.get(next)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const circle = stack.splice(stack.indexOf(file));
    if (circle.length > 1) found.push(circle.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

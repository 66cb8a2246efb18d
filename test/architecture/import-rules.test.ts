/**
 * The house's import rules, held by test: the client side (the client library, the MCP tools, the
 * CLI's client commands, the kinds' client halves) never reaches the server's hub, store or
 * doors; the hub reaches neither the client side, nor a door, nor a kind (it is handed the kinds),
 * and neither do the doors, the client library or the MCP server reach a kind;
 * a seed dialect, like every door, imports nothing of the store and nothing of another dialect;
 * no files import each other, but the one pair whose types are defined by each other.
 * A failure prints the chain of imports that broke the rule.
 */
import { describe, expect, it } from 'vitest';
import { circles, importedPackages, importGraph, reach } from './import-graph.js';

const graph = importGraph();
const files = [...graph.keys()];
const under =
  (...prefixes: string[]) =>
  (file: string) =>
    prefixes.some((p) => file.startsWith(p));

const isClientSide = under(
  'src/client/',
  'src/mcp/',
  'src/cli/commands/',
  'src/cli/attach/',
  'src/kinds/client.ts',
  'src/kinds/kind-client.ts',
);
const isKindClientHalf = (file: string) => /^src\/kinds\/[^/]+\/client\//.test(file);
const isServer = under('src/hub/', 'src/store/', 'src/doors/', 'src/server.ts');

/** The chains from `roots` to any file `forbidden` says no to, one line each. */
function breaches(roots: readonly string[], forbidden: (file: string) => boolean): string[] {
  return [...reach(graph, roots)].filter(([file]) => forbidden(file)).map(([, path]) => path.join(' -> '));
}

describe('import rules', () => {
  it('the client side reaches nothing of the server', () => {
    const roots = files.filter((f) => isClientSide(f) || isKindClientHalf(f));
    expect(roots.length).toBeGreaterThan(30);
    expect(breaches(roots, isServer)).toEqual([]);
  });

  it('the hub reaches no door, no kind and nothing of the client side', () => {
    const roots = files.filter(under('src/hub/'));
    expect(
      breaches(roots, (f) => under('src/doors/', 'src/kinds/', 'src/cli/', 'src/server.ts')(f) || isClientSide(f)),
    ).toEqual([]);
  });

  it('the store reaches nothing above it', () => {
    const roots = files.filter(under('src/store/'));
    expect(
      breaches(
        roots,
        under(
          'src/hub/',
          'src/doors/',
          'src/kinds/',
          'src/cli/',
          'src/client/',
          'src/mcp/',
          'src/identity/',
          'src/delivery/',
        ),
      ),
    ).toEqual([]);
  });

  it('every CLI command starts without the signer, the outbox or the YAML parser', () => {
    // Each command loads what cli/main.ts reaches; with these three `--help` opened 345 files, without them 219.
    const reached = [...reach(graph, ['src/cli/main.ts'])];
    expect(reached.length).toBeGreaterThan(50);
    const wrong = reached
      .filter(
        ([file]) =>
          file === 'src/delivery/signing.ts' ||
          file === 'src/delivery/outbox.ts' ||
          importedPackages(file).some((p) => p === 'jose' || p === 'yaml'),
      )
      .map(([, path]) => path.join(' -> '));
    expect(wrong).toEqual([]);
  });

  it('the doors, the client library and the MCP server name no kind: the kinds are handed to them', () => {
    const roots = files.filter(under('src/doors/', 'src/client/', 'src/mcp/'));
    expect(roots.length).toBeGreaterThan(60);
    expect(breaches(roots, under('src/kinds/'))).toEqual([]);
  });

  it('a seed dialect imports nothing of the store and nothing of another dialect', () => {
    const dialectOf = (file: string) => /^src\/dialects\/([^/]+)\//.exec(file)?.[1];
    const dialectFiles = files.filter((f) => dialectOf(f) !== undefined);
    expect(dialectFiles.length).toBeGreaterThanOrEqual(4);
    const wrong = dialectFiles.flatMap((file) =>
      (graph.get(file) ?? [])
        .filter((target) => {
          const other = dialectOf(target);
          return target.startsWith('src/store/') || (other !== undefined && other !== dialectOf(file));
        })
        .map((target) => `${file} -> ${target}`),
    );
    expect(wrong).toEqual([]);
  });

  it('no files import each other, directly or through others', () => {
    // A kind's part of the feed is handed the feed's reads, which carry every kind's part: two
    // types defined by each other, imported as types alone.
    expect(circles(graph)).toEqual([['src/doors/web/feed-kind.ts', 'src/doors/web/reads.ts']]);
  });
});

/**
 * The package as a user gets it: `npm pack` (which builds through `prepare`) of a copy of the
 * package's sources, so the build never touches the dist/ other test files run the CLI from, then
 * `npm install -g --prefix <temp> <tarball>` — what `npm i -g muster-hub` does — and from an empty
 * folder the installed `muster` command runs the hub, a CLI command against it, and `muster mcp`
 * over stdio with the official MCP client. The install fetches from the npm registry (or the
 * local npm cache), once for the file. better-sqlite3's install script downloads its prebuilt
 * binary from GitHub, as for any user; here it finds it in a local folder instead (its
 * npm_config_better_sqlite3_local_prebuilds), packed from this repository's own install, so the
 * test needs no GitHub and spends no minute compiling SQLite.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv } from './helpers/cli.js';
import { testDatabase, type TestDatabase } from './helpers/database.js';
import { mcpOverStdio } from './helpers/mcp.js';
import { startNode, type NodeProcess } from './helpers/nodes.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string };

/**
 * The runner's environment as a user's shell has it: without the npm_* variables and the
 * node_modules/.bin folders `npm test` adds, so neither npm nor the PATH reaches this repository.
 */
function userEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.toLowerCase().startsWith('npm_')) delete env[key];
  env['PATH'] = (env['PATH'] ?? '')
    .split(delimiter)
    .filter((dir) => !/node_modules[\\/]\.bin$|node-gyp-bin$/.test(dir))
    .join(delimiter);
  return env;
}

/**
 * A folder of prebuilt binaries for better-sqlite3's prebuild-install, holding the binary of this
 * repository's node_modules (built for this Node) under the name prebuild-install would download.
 */
async function localPrebuilds(dir: string): Promise<string> {
  const from = join(root, 'node_modules', 'better-sqlite3');
  const { version } = JSON.parse(readFileSync(join(from, 'package.json'), 'utf8')) as { version: string };
  const { platform, arch, versions } = process;
  const name = `better-sqlite3-v${version}-node-v${versions.modules}-${platform}-${arch}.tar.gz`;
  await run('tar', ['-czf', join(dir, name), '-C', from, 'build/Release/better_sqlite3.node']);
  return dir;
}

/** What `npm pack` builds and packs from, copied into `dir`, beside this repository's node_modules. */
function stagedPackage(dir: string): string {
  for (const entry of ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'README.md', 'docs', 'src'])
    cpSync(join(root, entry), join(dir, entry), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

interface PackedFile {
  path: string;
}

let temp: string;
let packed: PackedFile[];
let installLog: string;
let muster: string;
let db: TestDatabase;
let hub: NodeProcess | undefined;

beforeAll(async () => {
  temp = mkdtempSync(join(tmpdir(), 'muster-packed-'));
  const env = userEnv();
  const pack = await run('npm', ['pack', '--json', '--pack-destination', temp], {
    cwd: stagedPackage(mkdtempSync(join(temp, 'package-'))),
    env,
    maxBuffer: 16 * 1024 * 1024,
  });
  const [tarball] = JSON.parse(pack.stdout) as { filename: string; files: PackedFile[] }[];
  packed = tarball!.files;
  const prefix = join(temp, 'global');
  const prebuilds = await localPrebuilds(mkdtempSync(join(temp, 'prebuilds-')));
  const install = await run(
    'npm',
    [
      'install',
      '--global',
      '--prefix',
      prefix,
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      '--foreground-scripts',
    ].concat(join(temp, tarball!.filename)),
    { cwd: temp, env: { ...env, npm_config_better_sqlite3_local_prebuilds: prebuilds }, maxBuffer: 64 * 1024 * 1024 },
  ).catch((err: { stdout?: string; stderr?: string }) => {
    throw new Error(`npm install of the tarball failed:\n${err.stdout ?? ''}\n${err.stderr ?? ''}`);
  });
  installLog = install.stdout + install.stderr;
  muster = join(prefix, 'bin', 'muster');
  db = await testDatabase('packed');
}, 300_000);

afterAll(async () => {
  await hub?.stop();
  await db?.drop();
  if (temp) rmSync(temp, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('holds the built CLI, the README and the docs, and none of the tests, fixtures or source maps', () => {
    const paths = packed.map((f) => f.path);
    expect(paths).toEqual(expect.arrayContaining(['package.json', 'README.md', 'docs/mcp.md', 'dist/cli/main.js']));
    expect(paths.filter((p) => /\.(test|suite|fixture)\.|\.map$|^(src|test)\//.test(p))).toEqual([]);
    // dist/ is built fresh: each file in it comes from a source file that exists today
    const orphans = paths
      .filter((p) => p.startsWith('dist/'))
      .filter((p) => !existsSync(join(root, p.replace(/^dist\//, 'src/').replace(/\.js$/, '.ts'))));
    expect(orphans).toEqual([]);
  });

  it('installs by its name without building from source and without an engine warning on this Node', () => {
    expect(installLog).toContain(`${pkg.name}@${pkg.version}`);
    expect(installLog).not.toMatch(new RegExp(`> ${pkg.name}@\\S+ (prepare|build)`));
    expect(installLog).not.toContain('EBADENGINE');
    expect(existsSync(muster)).toBe(true);
    expect(installLog).not.toContain('gyp info'); // better-sqlite3's binary came prebuilt, not compiled
  });

  it('runs the hub, a CLI command against it and muster mcp, from an empty folder', async () => {
    const work = join(temp, 'work');
    mkdirSync(work);
    const cli = (args: string[], token?: string) =>
      run(muster, args, { cwd: work, env: childEnv(hub!.url, token, { PATH: userEnv()['PATH']! }) });

    hub = await startNode('packed', { bin: muster, db: db.url, cwd: work });
    expect((await cli(['--version'])).stdout.trim()).toBe(pkg.version);
    const health = await fetch(new URL('health', hub.url));
    expect(health.status).toBe(200);

    const { token } = JSON.parse((await cli(['register', 'packer', '--json'])).stdout) as { token: string };
    expect((await cli(['whoami'], token)).stdout).toContain('packer');

    const mcp = await mcpOverStdio(hub, token, {}, muster);
    try {
      expect(mcp.client.getServerVersion()?.version).toBe(pkg.version);
      const { tools } = await mcp.client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['muster_whoami', 'muster_send']));
    } finally {
      await mcp.close();
    }
  });
});

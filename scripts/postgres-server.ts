/**
 * A throwaway PostgreSQL server on 127.0.0.1 for the tests and the bench: initdb into a
 * temporary folder, started with pg_ctl on a free port, stopped and removed at the end.
 * The server programs are installed from Debian's packages by scripts/ensure-postgres.sh
 * when missing; a machine where that cannot happen fails the caller saying how to install
 * them. As root, the server runs as the `postgres` user (initdb refuses root).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

export interface PgServer {
  /** Connection string of a superuser without password. */
  readonly url: string;
  readonly port: number;
  /** Stops the server immediately (as a crash would end it), keeping its data. */
  kill(): void;
  /** Starts it again on the same port and data. */
  start(): void;
  /** Stops it and removes its data. */
  stop(): void;
}

const ROOT = path.resolve(__dirname, '..');

function binDir(): string | undefined {
  const versions = existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) if (existsSync(`/usr/lib/postgresql/${v}/bin/initdb`)) return `/usr/lib/postgresql/${v}/bin`;
  const found = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).stdout.trim();
  return found ? path.dirname(found) : undefined;
}

function serverPrograms(): string {
  let dir = binDir();
  if (!dir) {
    const installed = spawnSync(path.join(ROOT, 'scripts', 'ensure-postgres.sh'), {
      encoding: 'utf8',
      stdio: ['ignore', 'inherit', 'pipe'],
    });
    dir = binDir();
    if (!dir)
      throw new Error(`PostgreSQL is needed here and could not be installed: ${installed.stderr.trim() || `exit ${installed.status}`}`);
  }
  return dir;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface PgServerOptions {
  /**
   * Flush commits to disk as a production server does (default false: tests need no
   * durability across a power loss, and run faster without it).
   */
  readonly fsync?: boolean;
}

export async function startPostgres(options: PgServerOptions = {}): Promise<PgServer> {
  const bin = serverPrograms();
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fleetform-pg-'));
  const data = path.join(dir, 'data');
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const run = (program: string, args: string[]): void => {
    const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', path.join(bin, program), ...args]] : [path.join(bin, program), args];
    const r = spawnSync(cmd as string, argv as string[], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${program} ${args.join(' ')} failed: ${r.stderr || r.stdout}`);
  };
  run('initdb', ['-D', data, '-U', 'fleetform', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  const settings = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=${options.fsync ? 'on' : 'off'} -c max_connections=200`;
  const start = () => run('pg_ctl', ['-D', data, '-o', settings, '-l', path.join(dir, 'server.log'), '-w', 'start']);
  start();
  return {
    url: `postgres://fleetform@127.0.0.1:${port}/postgres`,
    port,
    kill: () => run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']),
    start,
    stop: () => {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // Already stopped.
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

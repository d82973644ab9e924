import { execFile } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/**
 * PostgreSQL refuses to run as root, so as root it runs as `nobody`, and `nobody` must reach both its
 * data folder and its binaries: every folder above them must let it pass. A project cloned under a
 * folder only root may enter (`/root`, a `mktemp -d`) gives it neither. Then the data folder is kept
 * where `nobody` can reach it, under `/var/lib/platform-service` (the temp dir where there is no
 * `/var/lib`), named after DATA_DIR's path and linked from `DATA_DIR/postgres`, so the link, not
 * the path, ties the two: a moved DATA_DIR keeps its data. The binaries are copied there once per
 * package version. What `nobody` can reach is asked of the system (a check run as `nobody`), not
 * guessed from permission bits.
 */

export interface ServerUser {
  uid: number;
  gid: number;
  name: string;
}

/** PostgreSQL's user: undefined when this process is not root (PostgreSQL then runs as this process's user). */
export function postgresUser(): ServerUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('nobody:'));
  if (!line) throw new Error('this process runs as root and there is no `nobody` user to run PostgreSQL as');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid), name: 'nobody' };
}

/** Where the relocated folders live: a root-owned folder every user may pass through. */
export function relocationBase(): string {
  return existsSync('/var/lib') ? '/var/lib/platform-service' : join(tmpdir(), 'platform-service');
}

/** Whether `user` can enter `dir` (every folder above it included). */
export async function canEnter(user: ServerUser, dir: string): Promise<boolean> {
  try {
    await execFileAsync('/bin/sh', ['-c', 'test -x "$1"', 'sh', dir], { uid: user.uid, gid: user.gid, env: {} });
    return true;
  } catch {
    return false;
  }
}

/**
 * The folder PostgreSQL keeps its cluster in for `dataDir`: `dataDir/postgres`, or the folder that
 * link points to. A new one is made where `user` can reach it.
 */
export async function postgresDataFolder(
  dataDir: string,
  user: ServerUser | undefined,
  log: (message: string) => void,
): Promise<string> {
  const link = join(dataDir, 'postgres');
  if (user) {
    mkdirSync(dataDir, { recursive: true });
    // Traverse only: nothing in DATA_DIR becomes listable or readable for PostgreSQL's user.
    chmodSync(dataDir, statSync(dataDir).mode | 0o111);
  }
  let linked: string | undefined;
  try {
    if (lstatSync(link).isSymbolicLink()) linked = resolve(dataDir, readlinkSync(link));
    else if (existsSync(join(link, 'PG_VERSION')) || readdirSync(link).length > 0) return link;
    // Left empty by a first start that could not initialise it (an older version made it before initdb).
    else rmdirSync(link);
  } catch {
    // Neither: a new cluster.
  }
  if (linked) {
    if (!existsSync(linked)) {
      throw new Error(
        `${link} links to ${linked}, which is gone: PostgreSQL's data is no longer there. ` +
          `Restore that folder, or remove the link to start with an empty database.`,
      );
    }
    return linked;
  }
  if (!user || (await canEnter(user, dataDir))) return link;

  const base = relocationBase();
  mkdirSync(base, { recursive: true, mode: 0o755 });
  if (!(await canEnter(user, base))) {
    throw new Error(
      `${user.name} (PostgreSQL's user) can reach neither ${dataDir} nor ${base}: give DATA_DIR a folder ${user.name} can pass through`,
    );
  }
  const real = realpathSync(dataDir);
  const folder = join(
    base,
    `${
      basename(real)
        .replace(/^\.+/, '')
        .replace(/[^\w.-]/g, '_') || 'data'
    }-${createHash('sha256').update(real).digest('hex').slice(0, 12)}`,
  );
  if (existsSync(folder)) {
    throw new Error(
      `${folder} already exists but ${link} does not link to it: link it (ln -s ${folder} ${link}) to use its data, or remove it`,
    );
  }
  mkdirSync(folder, { mode: 0o700 });
  chownSync(folder, user.uid, user.gid);
  symlinkSync(folder, link);
  log(
    `Embedded database: ${user.name} (PostgreSQL refuses root) cannot pass through a folder above ${dataDir}, ` +
      `so PostgreSQL keeps its data in ${folder}, linked from ${link}.`,
  );
  return folder;
}

/**
 * The package's `native` folder (bin/, lib/, share/), or a copy of it `user` can run: PostgreSQL
 * finds its libraries and share/ beside its binary, so the whole folder is copied, links as links.
 */
export async function postgresBinaries(native: string, version: string, user: ServerUser | undefined): Promise<string> {
  if (!user || (await runs(user, native))) return native;
  const base = relocationBase();
  mkdirSync(base, { recursive: true, mode: 0o755 });
  const copy = join(base, `postgresql-${version}`);
  if (existsSync(copy) && (await runs(user, copy))) return copy;
  // Copied beside and renamed into place, so a start interrupted halfway leaves no half copy in use.
  const partial = `${copy}.${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  cpSync(native, partial, { recursive: true, verbatimSymlinks: true });
  chmodSync(partial, 0o755);
  rmSync(copy, { recursive: true, force: true });
  renameSync(partial, copy);
  if (!(await runs(user, copy))) throw new Error(`${user.name} cannot run PostgreSQL even from ${copy}`);
  return copy;
}

async function runs(user: ServerUser, native: string): Promise<boolean> {
  try {
    await execFileAsync(join(native, 'bin', 'postgres'), ['--version'], {
      uid: user.uid,
      gid: user.gid,
      env: { LD_LIBRARY_PATH: join(native, 'lib'), LC_ALL: 'C' },
    });
    return true;
  } catch {
    return false;
  }
}

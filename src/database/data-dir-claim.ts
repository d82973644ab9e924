import {
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

/**
 * One embedded database per data folder. Its files (PostgreSQL's cluster, FerretDB's SQLite files,
 * mongod's dbPath) take one server at a time, and a second server that could not start on them used
 * to leave a second process on an empty database without a word. So the process that starts the
 * embedded database first claims the folder: it creates `DATA_DIR/embedded-database.json`
 * exclusively (only one creator can succeed, as with an insert against a unique index) and writes
 * into it its pid, the pids of the servers it starts and, once they answer, their address. Another
 * process that finds the claim of a live process uses that database; one that finds the claim of a
 * dead process (killed before it could clean up) stops the servers it left running and claims the
 * folder for itself. Taking over a dead claim is itself serialised by an exclusive create
 * (`embedded-database.takeover`), so two processes never both take it.
 */

export const CLAIM_FILE = 'embedded-database.json';
const TAKEOVER_FILE = 'embedded-database.takeover';
/** A takeover older than this was left by a process that died in the middle of one. */
const TAKEOVER_STALE_MS = 30_000;
/** How long a process waits for another one that is still starting the folder's database. */
const STARTING_WAIT_MS = 300_000;
/** How long a process waits for an owner whose database no longer answers to exit. */
const STOPPING_WAIT_MS = 30_000;

export interface ClaimedServer {
  pid: number;
  /** The executable, to tell the server from an unrelated process that took its pid later. */
  command: string;
  /** The signal that stops it cleanly (PostgreSQL's fast shutdown is SIGINT). */
  signal: NodeJS.Signals;
}

export interface RunningDatabase {
  engine: 'mongod' | 'ferretdb';
  backend?: 'postgresql' | 'sqlite';
  uri: string;
  clientOptions: string;
  postgresUrl?: string;
}

export interface ClaimRecord {
  pid: number;
  /** The owner's executable: a pid alive after a reboot may be another program's. */
  command: string;
  startedAt: string;
  servers: ClaimedServer[];
  database?: RunningDatabase;
}

export type ClaimOutcome =
  { kind: 'owner'; claim: DataDirClaim } | { kind: 'shared'; pid: number; database: RunningDatabase };

/** This process's claims, by data folder: a second start in the same process (a copy from one backend to the other) adds to the first. */
const held = new Map<string, DataDirClaim>();

export class DataDirClaim {
  private holders = 1;
  private released = false;
  private readonly releaseOnExit = () => this.removeFile();

  constructor(
    readonly dataDir: string,
    private record: ClaimRecord,
  ) {
    process.once('exit', this.releaseOnExit);
  }

  addHolder(): this {
    this.holders += 1;
    return this;
  }

  /** A server this process started: a later process stops it if this one dies without doing so. */
  addServer(server: ClaimedServer): void {
    if (this.released) return;
    this.record = { ...this.record, servers: [...this.record.servers, server] };
    this.write();
  }

  /** The database answers: other processes on this folder may use it from now on. */
  publish(database: RunningDatabase): void {
    if (this.released || this.record.database) return;
    this.record = { ...this.record, database };
    this.write();
  }

  release(): void {
    this.holders -= 1;
    if (this.holders > 0 || this.released) return;
    this.released = true;
    held.delete(this.dataDir);
    process.removeListener('exit', this.releaseOnExit);
    this.removeFile();
  }

  private write(): void {
    // Written beside and renamed over, so a reader never sees half a record.
    const next = join(this.dataDir, `${CLAIM_FILE}.${process.pid}`);
    writeFileSync(next, JSON.stringify(this.record, null, 2));
    renameSync(next, join(this.dataDir, CLAIM_FILE));
  }

  private removeFile(): void {
    try {
      const current = readClaim(this.dataDir);
      if (current?.pid === process.pid) unlinkSync(join(this.dataDir, CLAIM_FILE));
    } catch {
      // Already gone.
    }
  }
}

/**
 * Claims `dataDir` for this process, or answers the database another live process runs on it.
 * `accepts` says whether that database is one this caller can use (a forced backend); when it is not,
 * the claim fails with the reason and what to do.
 */
export async function claimDataDir(
  dataDir: string,
  options: {
    accepts: (database: RunningDatabase) => string | undefined;
    log: (message: string) => void;
    canConnect: (uri: string) => Promise<boolean>;
  },
): Promise<ClaimOutcome> {
  const mine = held.get(dataDir);
  if (mine) return { kind: 'owner', claim: mine.addHolder() };

  const file = join(dataDir, CLAIM_FILE);
  let waitingSince: number | undefined;
  let unansweredSince: number | undefined;
  for (;;) {
    const record: ClaimRecord = {
      pid: process.pid,
      command: process.execPath,
      startedAt: new Date().toISOString(),
      servers: [],
    };
    if (createExclusive(file, JSON.stringify(record, null, 2))) {
      const claim = new DataDirClaim(dataDir, record);
      held.set(dataDir, claim);
      return { kind: 'owner', claim };
    }

    const current = readClaim(dataDir);
    if (!current) {
      // Removed, or not written yet by a process that just created it: look again.
      await sleep(100);
      continue;
    }
    if (!isSameProgram(current)) {
      await takeOver(dataDir, current, options.log);
      continue;
    }
    if (!current.database) {
      if (waitingSince === undefined)
        options.log(
          `Embedded database: process ${current.pid} is starting the embedded database of ${dataDir}; waiting for it.`,
        );
      waitingSince ??= Date.now();
      if (Date.now() - waitingSince > STARTING_WAIT_MS) {
        throw new Error(
          `Process ${current.pid} has been starting the embedded database of ${dataDir} for over ${STARTING_WAIT_MS / 60_000} minutes. ` +
            `Stop it, or give this process another DATA_DIR.`,
        );
      }
      await sleep(250);
      continue;
    }
    if (!(await options.canConnect(current.database.uri))) {
      // Its owner is stopping (the database goes first, then the process): once it has exited, the folder is free.
      unansweredSince ??= Date.now();
      if (Date.now() - unansweredSince > STOPPING_WAIT_MS) {
        throw new Error(
          `Process ${current.pid} holds the embedded database of ${dataDir} (${file}), but the database does not answer at ${current.database.uri}. ` +
            `Stop process ${current.pid}; if it is not this service, delete ${file}.`,
        );
      }
      await sleep(250);
      continue;
    }
    const refusal = options.accepts(current.database);
    if (refusal) {
      throw new Error(
        `Process ${current.pid} already runs the embedded database of ${dataDir} (${describe(current.database)}), and ${refusal}. ` +
          `Stop process ${current.pid} first, or give this process another DATA_DIR.`,
      );
    }
    return { kind: 'shared', pid: current.pid, database: current.database };
  }
}

export function describe(database: RunningDatabase): string {
  return database.engine === 'mongod'
    ? 'mongod'
    : `FerretDB on ${database.backend === 'sqlite' ? 'SQLite' : 'PostgreSQL'}`;
}

export function readClaim(dataDir: string): ClaimRecord | undefined {
  try {
    return JSON.parse(readFileSync(join(dataDir, CLAIM_FILE), 'utf8')) as ClaimRecord;
  } catch {
    return undefined;
  }
}

/** The claim of a process that died: the servers it left are stopped, then the claim is removed, by one process at a time. */
async function takeOver(dataDir: string, stale: ClaimRecord, log: (message: string) => void): Promise<void> {
  const lock = join(dataDir, TAKEOVER_FILE);
  if (!createExclusive(lock, String(process.pid))) {
    try {
      if (Date.now() - statSync(lock).mtimeMs > TAKEOVER_STALE_MS) unlinkSync(lock);
    } catch {
      // Finished meanwhile.
    }
    await sleep(200);
    return;
  }
  try {
    // Read again under the takeover: another process may have replaced the stale claim already.
    const current = readClaim(dataDir);
    if (!current || current.pid !== stale.pid || current.startedAt !== stale.startedAt) return;
    const left = current.servers.filter((server) => isSameProgram(server));
    if (left.length > 0) {
      log(
        `Embedded database: process ${current.pid} ended without stopping its database servers (pids ${left.map((server) => server.pid).join(', ')}); stopping them.`,
      );
      await Promise.all(left.map((server) => stopProcess(server)));
    }
    unlinkSync(join(dataDir, CLAIM_FILE));
  } finally {
    unlinkSync(lock);
  }
}

/** Whether `pid` still runs the given executable (not another program that got the pid since). */
function isSameProgram({ pid, command }: { pid: number; command: string }): boolean {
  if (!isAlive(pid)) return false;
  if (!existsSync('/proc')) return true; // not Linux: alive, and it was the program a moment ago
  try {
    return realpathSync(readlinkSync(`/proc/${pid}/exe`).replace(/ \(deleted\)$/, '')) === realpathSync(command);
  } catch {
    // Another user's process whose executable cannot be read: alive, so taken as the program.
    return true;
  }
}

async function stopProcess(server: ClaimedServer): Promise<void> {
  try {
    process.kill(server.pid, server.signal);
  } catch {
    return;
  }
  const deadline = Date.now() + 10_000;
  while (isAlive(server.pid)) {
    if (Date.now() > deadline) {
      try {
        process.kill(server.pid, 'SIGKILL');
      } catch {
        return;
      }
    }
    await sleep(100);
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, owned by another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function createExclusive(file: string, content: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  return true;
}

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

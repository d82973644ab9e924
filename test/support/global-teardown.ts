import { lstatSync, readlinkSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { EmbeddedDatabase } from '../../src/database/embedded-database';
import type { MailServerProcess } from './mail-server';

export default async function globalTeardown(): Promise<void> {
  await stopTestServices();
}

/**
 * Stops the run's database and Mailpit and removes the database's folder: at the end of a run, and
 * on Ctrl-C or a kill, which end Jest without its teardown (global-setup.ts). Each step runs even
 * when an earlier one fails, so the folder goes whatever state a stop left the servers in.
 */
export async function stopTestServices(): Promise<void> {
  const held = globalThis as { __TEST_DATABASE__?: EmbeddedDatabase; __TEST_MAIL__?: MailServerProcess };
  const database = held.__TEST_DATABASE__;
  const mail = held.__TEST_MAIL__;
  held.__TEST_DATABASE__ = undefined;
  held.__TEST_MAIL__ = undefined;
  const stops = await Promise.allSettled([database?.stop(), mail?.stop()]);
  if (process.env.TEST_DATABASE_DIR) removeDatabaseFolder(process.env.TEST_DATABASE_DIR);
  const failed = stops.find((stop): stop is PromiseRejectedResult => stop.status === 'rejected');
  if (failed) throw failed.reason;
}

/**
 * The database's folder, and PostgreSQL's cluster where it lives elsewhere: run as root, PostgreSQL's
 * user may not reach a temporary folder, and the cluster is kept where it can, linked from
 * `<folder>/postgres` (src/database/postgres-home.ts).
 */
function removeDatabaseFolder(dir: string): void {
  const link = join(dir, 'postgres');
  try {
    if (lstatSync(link).isSymbolicLink()) rmSync(resolve(dir, readlinkSync(link)), { recursive: true, force: true });
  } catch {
    // No cluster yet: the run stopped before the database was made.
  }
  rmSync(dir, { recursive: true, force: true });
}

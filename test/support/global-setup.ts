import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedDatabase, type EmbeddedDatabaseOptions } from '../../src/database/embedded-database';
import { stopTestServices } from './global-teardown';
import { startMailServer } from './mail-server';

/**
 * One throwaway database server per test run; each test file takes its own database on it.
 * A MONGODB_URI given by the caller (a real MongoDB) is used instead.
 */
export default async function globalSetup(): Promise<void> {
  stopOnSignals();
  await startMail();
  if (process.env.MONGODB_URI) {
    const match = /^(.*?\/)[^/?]*(\?.*)?$/.exec(
      process.env.MONGODB_URI.replace(/^(mongodb(\+srv)?:\/\/[^/?]*)(\?|$)/, '$1/$3'),
    );
    process.env.TEST_MONGODB_BASE_URI = match?.[1] ?? process.env.MONGODB_URI;
    // Options such as replicaSet=rs0 travel with every test database's URI (testDatabaseUri).
    process.env.TEST_MONGODB_URI_OPTIONS = match?.[2] ?? '';
    return;
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-test-db-'));
  const database = await startEmbeddedDatabase({
    dataDir,
    ferretdbBin: process.env.FERRETDB_BIN,
    backend: process.env.EMBEDDED_DATABASE_BACKEND as EmbeddedDatabaseOptions['backend'],
    log: () => undefined,
  });
  process.env.TEST_MONGODB_BASE_URI = database.uri;
  process.env.TEST_MONGODB_URI_OPTIONS = database.clientOptions;
  // The services the tests start on it add FerretDB's GIN indexes, as the service does on its own embedded database.
  if (database.postgresUrl) process.env.EMBEDDED_POSTGRES_URL = database.postgresUrl;
  process.env.TEST_DATABASE_DIR = dataDir;
  (globalThis as { __TEST_DATABASE__?: typeof database }).__TEST_DATABASE__ = database;
  process.stderr.write(
    `\nTest database: embedded ${database.engine}${database.backend ? ` on ${database.backend}` : ''} at ${database.uri}\n`,
  );
}

/**
 * One Mailpit per test run: every service the tests start sends its mail there (SMTP_URL, read by
 * createTestApp and by the services started as processes from process.env), and the tests read it
 * back through its API (MAILPIT_API_URL, test/support/mail-server.ts).
 */
async function startMail(): Promise<void> {
  const mail = await startMailServer();
  process.env.SMTP_URL = mail.smtpUrl;
  process.env.MAILPIT_API_URL = mail.apiUrl;
  (globalThis as { __TEST_MAIL__?: typeof mail }).__TEST_MAIL__ = mail;
  process.stderr.write(`\nTest mail: Mailpit, SMTP ${mail.smtpUrl}, API ${mail.apiUrl}\n`);
}

/**
 * Ctrl-C (or a kill) ends Jest without its global teardown: the run's servers would be left running
 * and the database's folder behind. The first signal stops them and removes the folder, then exits
 * as the signal would have; a second one exits at once.
 */
function stopOnSignals(): void {
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.once(signal, () => {
      process.stderr.write(`\n${signal}: stopping the test database and mail server\n`);
      void stopTestServices()
        .catch((error: Error) => process.stderr.write(`Stopping the test servers failed: ${error.message}\n`))
        .finally(() => process.exit(code));
    });
  }
}

// First, so that every module below is imported with Intl's date formats deferred (common/memory/deferred-date-formats.ts).
import { whileImporting } from './common/memory/while-importing';
import { Logger } from '@nestjs/common';
import { createApp } from './app.factory';
import { bootstrapLogger } from './common/logging/app-logger';
import { listeningMessage } from './common/logging/listening-message';
import { releaseStartUpMemory } from './common/memory/release-start-up-memory';
import { flushLogs } from './common/logging/log-stream';
import { loadEnvironment } from './config/env.validation';
import { EmbeddedDatabase, startEmbeddedDatabase } from './database/embedded-database';
import { JobRunner } from './jobs/job-runner';

async function bootstrap(): Promise<void> {
  whileImporting.stop();
  const logger = new Logger('Bootstrap');
  let env;
  try {
    env = loadEnvironment();
  } catch (error) {
    logger.error((error as Error).message);
    process.exit(1);
  }
  Logger.overrideLogger(bootstrapLogger(env.LOG_LEVEL, env.NODE_ENV));

  let embedded: EmbeddedDatabase | undefined;
  if (!env.MONGODB_URI) {
    embedded = await startEmbeddedDatabase({
      dataDir: env.DATA_DIR,
      ferretdbBin: env.FERRETDB_BIN,
      backend: env.EMBEDDED_DATABASE_BACKEND,
      log: (message) => logger.log(message),
      warn: (message) => logger.warn(message),
    });
    env = {
      ...env,
      MONGODB_URI: `${embedded.uri}platform${embedded.clientOptions}`,
      ...(embedded.postgresUrl ? { EMBEDDED_POSTGRES_URL: embedded.postgresUrl } : {}),
    };
    logger.log(
      `MONGODB_URI is not set: using an embedded ${embedded.engine}${embedded.backend ? ` on ${embedded.backend}` : ''} with data under ${env.DATA_DIR}/`,
    );
  }

  const app = await createApp(env);
  await app.listen(env.PORT, env.HOST);
  logger.log(listeningMessage(env.HOST, env.PORT));
  releaseStartUpMemory();

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.log(`${signal} received: finishing in-flight requests`);
    // A request or a background task that never settles must not keep a stopping instance alive.
    const deadline = setTimeout(() => {
      logger.error(`Shutdown did not finish within ${env.SHUTDOWN_TIMEOUT_MS} ms: stopping now`);
      void stopAndExit(1);
    }, env.SHUTDOWN_TIMEOUT_MS);
    let code = 0;
    try {
      // No periodic job starts a step from here on, and the running ones end while every module is still up.
      await app.get(JobRunner).stop();
      await app.close();
    } catch (error) {
      logger.error(`Shutdown failed: ${(error as Error).message}`);
      code = 1;
    } finally {
      clearTimeout(deadline);
    }
    await stopAndExit(code);
  };
  let exiting = false;
  const stopAndExit = async (code: number) => {
    if (exiting) return;
    exiting = true;
    try {
      await embedded?.stop();
    } catch (error) {
      logger.error(`Stopping the embedded database failed: ${(error as Error).message}`);
      code = 1;
    }
    // Log lines are written asynchronously: the last ones go out before the process does.
    await flushLogs();
    process.exit(code);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  // A closed terminal: without a handler Node would die at once and leave the embedded database running.
  process.once('SIGHUP', () => void shutdown('SIGHUP'));
}

bootstrap().catch((error: Error) => {
  new Logger('Bootstrap').error(error.message);
  process.exit(1);
});

import { NestFactory } from '@nestjs/core';
import type { DynamicModule, INestApplicationContext, Type } from '@nestjs/common';
import { databaseConfig } from '../config/database.config';
import { loadEnvironment } from '../config/env.validation';
import { configModule, type NamespaceBuilder } from '../config/namespace';
import { DatabaseModule } from '../database/database.module';
import { authConfig } from '../config/auth.config';
import { financeConfig } from '../config/finance.config';
import { eventsConfig } from '../config/events.config';
import { EventsModule } from '../events/events.module';
import { InProcessEventsModule } from '../in-process-events/in-process-events.module';
import { AuditModule } from '../audit/audit.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { JobsModule } from '../jobs/jobs.module';
import { EmbeddedDatabase, startEmbeddedDatabase } from '../database/embedded-database';

/**
 * Runs an operator's command (`npm run migrate`, `npm run reencrypt`) in an application context
 * with only the given modules: no HTTP. Uses MONGODB_URI; without it, the embedded database under
 * DATA_DIR that the service uses in development (a running service's, when one runs on that
 * folder). Exits 0 when `work` succeeds, else prints `<name> failed: <why>` and exits 1.
 */
export function runCommand(
  name: string,
  options: { config?: NamespaceBuilder[]; imports: Array<Type | DynamicModule> },
  work: (context: INestApplicationContext) => Promise<string[]>,
): void {
  main(options, work).then(
    (lines) => {
      for (const line of lines) console.log(line);
      process.exit(0);
    },
    (error: Error) => {
      console.error(`${name} failed: ${error.message}`);
      process.exit(1);
    },
  );
}

async function main(
  options: { config?: NamespaceBuilder[]; imports: Array<Type | DynamicModule> },
  work: (context: INestApplicationContext) => Promise<string[]>,
): Promise<string[]> {
  let env = loadEnvironment();
  let embedded: EmbeddedDatabase | undefined;
  const lines: string[] = [];
  if (!env.MONGODB_URI) {
    embedded = await startEmbeddedDatabase({
      dataDir: env.DATA_DIR,
      ferretdbBin: env.FERRETDB_BIN,
      backend: env.EMBEDDED_DATABASE_BACKEND,
      log: (message) => console.error(message),
    });
    // The same database name as the service's (main.ts).
    env = { ...env, MONGODB_URI: `${embedded.uri}platform${embedded.clientOptions}` };
    lines.push(`MONGODB_URI is not set: using the embedded ${embedded.engine} database under ${env.DATA_DIR}/`);
  }
  try {
    const context = await NestFactory.createApplicationContext(
      {
        module: class CommandModule {},
        imports: [
          // The feature modules bring their controllers, whose POST routes carry @Idempotent(): its guard
          // needs the store and the fingerprint key, as in the service.
          configModule(env, [databaseConfig, authConfig, financeConfig, eventsConfig, ...(options.config ?? [])]),
          InProcessEventsModule,
          DatabaseModule,
          // Repositories record their changes' events through the relay, whose sweep is a job of the runner.
          JobsModule,
          EventsModule,
          AuditModule,
          IdempotencyModule,
          ...options.imports,
        ],
      },
      { logger: ['error', 'fatal'] },
    );
    try {
      return [...lines, ...(await work(context))];
    } finally {
      await context.close();
    }
  } finally {
    await embedded?.stop();
  }
}

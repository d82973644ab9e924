import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { NestFactory } from '@nestjs/core';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { databaseConfig } from '../config/database.config';
import { validateEnvironment } from '../config/env.validation';
import { DatabaseModule } from '../database/database.module';
import { EmbeddedDatabase, startEmbeddedDatabase } from '../database/embedded-database';
import { MigrationsModule } from './migrations.module';
import { describeMigration, SingleTenantMigration } from './single-tenant.migration';

/** Only what the migration needs: no HTTP, no token secret. */
@Module({
  imports: [
    ConfigModule.forRoot({ isGlobal: true, load: [databaseConfig] }),
    EventEmitterModule.forRoot({ wildcard: false, ignoreErrors: false }),
    DatabaseModule,
    MigrationsModule,
  ],
})
class MigrateCommandModule {}

/**
 * `npm run migrate`: gives the records of a single-tenant build their account and platform project.
 * Uses MONGODB_URI; without it, the embedded database under DATA_DIR that the service uses in
 * development (stop the service first: one process at a time on those files).
 */
async function main(): Promise<void> {
  const env = validateEnvironment(process.env);
  let embedded: EmbeddedDatabase | undefined;
  if (!env.MONGODB_URI) {
    embedded = await startEmbeddedDatabase({ dataDir: env.DATA_DIR, ferretdbBin: env.FERRETDB_BIN, log: (message) => console.error(message) });
    // The same database name as the service's (main.ts).
    process.env.MONGODB_URI = `${embedded.uri}platform`;
    console.log(`MONGODB_URI is not set: migrating the embedded ${embedded.engine} database under ${env.DATA_DIR}/`);
  }
  try {
    const context = await NestFactory.createApplicationContext(MigrateCommandModule, { logger: ['error', 'fatal'] });
    try {
      const report = await context.get(SingleTenantMigration).run();
      for (const line of describeMigration(report)) console.log(line);
    } finally {
      await context.close();
    }
  } finally {
    await embedded?.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    console.error(`Migration failed: ${error.message}`);
    process.exit(1);
  },
);

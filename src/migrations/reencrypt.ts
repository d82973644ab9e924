import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { NestFactory } from '@nestjs/core';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { authConfig } from '../config/auth.config';
import { databaseConfig } from '../config/database.config';
import { validateEnvironment } from '../config/env.validation';
import { financeConfig } from '../config/finance.config';
import { CustomersModule } from '../customers/customers.module';
import { SocialNumberReencryption } from '../customers/social-number-reencryption';
import { DatabaseModule } from '../database/database.module';
import { EmbeddedDatabase, startEmbeddedDatabase } from '../database/embedded-database';

@Module({
  imports: [
    ConfigModule.forRoot({ isGlobal: true, load: [databaseConfig, authConfig, financeConfig] }),
    EventEmitterModule.forRoot({ wildcard: false, ignoreErrors: false }),
    DatabaseModule,
    CustomersModule,
  ],
})
class ReencryptCommandModule {}

/**
 * `npm run reencrypt`: encrypts social numbers still stored in plain text and moves those under an
 * older key to the first key of FIELD_ENCRYPTION_KEY. Uses MONGODB_URI; without it, the embedded
 * development database under DATA_DIR (stop the service first).
 */
async function main(): Promise<void> {
  const env = validateEnvironment(process.env);
  let embedded: EmbeddedDatabase | undefined;
  if (!env.MONGODB_URI) {
    embedded = await startEmbeddedDatabase({ dataDir: env.DATA_DIR, ferretdbBin: env.FERRETDB_BIN, log: (message) => console.error(message) });
    process.env.MONGODB_URI = `${embedded.uri}platform`;
  }
  try {
    const context = await NestFactory.createApplicationContext(ReencryptCommandModule, { logger: ['error', 'fatal'] });
    try {
      const report = await context.get(SocialNumberReencryption).run();
      console.log(
        `Social numbers: ${report.encrypted} encrypted from plain text, ${report.rotated} moved to the current key, ${report.current} already current`,
      );
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
    console.error(`Re-encryption failed: ${error.message}`);
    process.exit(1);
  },
);

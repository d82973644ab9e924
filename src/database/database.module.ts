import { Injectable, Logger, Module, OnApplicationBootstrap } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectConnection, MongooseModule } from '@nestjs/mongoose';
import mongoose, { Connection } from 'mongoose';
import { DatabaseConfig } from '../config/database.config';
import { detectFerretdb } from './ferretdb';
import { FerretdbSizeWatch } from './ferretdb-size-watch';
import { addGinIndexesOnStart } from './patches/ferretdb-gin-indexes';

// Operator injection guard: query filters built from request values cannot smuggle `$` operators.
mongoose.set('sanitizeFilter', true);
mongoose.set('strictQuery', true);

/**
 * Builds every model's indexes before the service takes traffic, so that a unique index already
 * stands when the first concurrent writes arrive. Asks whether the server is FerretDB (ferretdb.ts),
 * and on the embedded FerretDB on PostgreSQL adds the GIN indexes its filters can use
 * (patches/ferretdb-gin-indexes).
 */
@Injectable()
class IndexesReady implements OnApplicationBootstrap {
  private readonly logger = new Logger('Database');

  constructor(
    @InjectConnection() private readonly connection: Connection,
    private readonly config: ConfigService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all(Object.values(this.connection.models).map((model) => model.init()));
    this.logger.log(`Indexes ready for ${Object.keys(this.connection.models).length} models`);
    await detectFerretdb(this.connection);
    const postgresUrl = this.config.getOrThrow<DatabaseConfig>('database').embeddedPostgresUrl;
    if (postgresUrl) await addGinIndexesOnStart(this.connection, postgresUrl);
  }
}

/**
 * The connection to MongoDB (or the embedded database main.ts started), with `sanitizeFilter` and
 * `strictQuery` on for every query, the index builds at start and the FerretDB size watch.
 * `Records` (records.ts) is the one way a repository reaches a collection, and `patches/` holds the
 * fenced uses of dependencies' internals. It keeps no tenant invariant itself: that is
 * `TenantRecords`'s (src/tenancy).
 */
@Module({
  imports: [
    MongooseModule.forRootAsync({
      inject: [ConfigService],
      useFactory: (config: ConfigService) => {
        const database = config.getOrThrow<DatabaseConfig>('database');
        if (!database.uri) {
          throw new Error('MONGODB_URI is not set and no embedded database was provisioned');
        }
        return {
          uri: database.uri,
          // Fail fast while the database is away: requests get 503 instead of hanging.
          serverSelectionTimeoutMS: 3_000,
          bufferTimeoutMS: 3_000,
          autoIndex: true,
        };
      },
    }),
  ],
  providers: [IndexesReady, FerretdbSizeWatch],
})
export class DatabaseModule {}

import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { ClockModule } from '../common/clock/clock';
import { LeasesModule } from '../leases/leases.module';
import { PlatformProjectsModule } from '../platform-projects/platform-projects.module';
import { ApiKey, ApiKeySchema } from './api-key.schema';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeysService } from './api-keys.service';

/**
 * API keys of platform projects, secret (`sk_test_`) and publishable (`pk_test_`); the
 * authentication guard asks `ApiKeysService.authenticate` about bearer keys. Invariants: a key is
 * stored only as its SHA-256 (unique) and shown once; it acts only in its own project and never on
 * the platform's routes; nothing about a key is cached, so a revoked or expired key fails at its
 * next request on every instance; a key is rolled once (its successor's grace only brings its end
 * forward).
 */
@Module({
  imports: [
    MongooseModule.forFeature([{ name: ApiKey.name, schema: ApiKeySchema }]),
    PlatformProjectsModule,
    ClockModule,
    LeasesModule,
  ],
  controllers: [ApiKeysController],
  providers: [ApiKeysRepository, ApiKeysService],
  exports: [ApiKeysService],
})
export class ApiKeysModule {}

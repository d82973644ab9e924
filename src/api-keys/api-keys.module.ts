import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { ClockModule } from '../common/clock/clock';
import { LeasesModule } from '../leases/leases.module';
import { PlatformProjectsModule } from '../platform-projects/platform-projects.module';
import { ApiKey, ApiKeySchema } from './api-key.schema';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeysService } from './api-keys.service';

/** API keys of platform projects; the authentication guard asks `ApiKeysService.authenticate` about `sk_` bearer tokens. */
@Module({
  imports: [MongooseModule.forFeature([{ name: ApiKey.name, schema: ApiKeySchema }]), PlatformProjectsModule, ClockModule, LeasesModule],
  controllers: [ApiKeysController],
  providers: [ApiKeysRepository, ApiKeysService],
  exports: [ApiKeysService],
})
export class ApiKeysModule {}

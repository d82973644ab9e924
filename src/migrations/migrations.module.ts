import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { CollaboratorsModule } from '../collaborators/collaborators.module';
import { PlatformProjectsModule } from '../platform-projects/platform-projects.module';
import { ChannelOwnersMigration } from './channel-owners.migration';
import { EventsModule } from '../events/events.module';
import { UsersModule } from '../identity/users/users.module';
import { LegacyDataRepository } from './legacy-data.repository';
import { SingleTenantMigration } from './single-tenant.migration';
import { UnmigratedDataCheck } from './unmigrated-data.check';

/**
 * The start-up warning about records without a project, and the migrations (`npm run migrate`): a
 * project for every record, an owner for every channel. Invariant: every migration is idempotent,
 * so run again it changes nothing and says so.
 */
@Module({
  imports: [AccountsModule, PlatformProjectsModule, CollaboratorsModule, UsersModule, EventsModule],
  providers: [UnmigratedDataCheck, SingleTenantMigration, ChannelOwnersMigration, LegacyDataRepository],
  exports: [UnmigratedDataCheck, SingleTenantMigration, ChannelOwnersMigration],
})
export class MigrationsModule {}

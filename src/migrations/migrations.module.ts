import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { CollaboratorsModule } from '../collaborators/collaborators.module';
import { PlatformProjectsModule } from '../platform-projects/platform-projects.module';
import { ChannelOwnersMigration } from './channel-owners.migration';
import { EventObjectsMigration } from './event-objects.migration';
import { UsersModule } from '../identity/users/users.module';
import { LegacyDataRepository } from './legacy-data.repository';
import { SingleTenantMigration } from './single-tenant.migration';
import { UnmigratedDataCheck } from './unmigrated-data.check';
import { WebhookClaimsMigration } from './webhook-claims.migration';

/**
 * The start-up warning about records without a project, and the migrations (`npm run migrate`): a
 * project for every record, an owner for every channel, its object's id beside every event, no
 * collection an earlier build left behind. Invariant: every migration is idempotent, so run again it
 * changes nothing and says so.
 */
@Module({
  imports: [AccountsModule, PlatformProjectsModule, CollaboratorsModule, UsersModule],
  providers: [
    UnmigratedDataCheck,
    SingleTenantMigration,
    ChannelOwnersMigration,
    EventObjectsMigration,
    WebhookClaimsMigration,
    LegacyDataRepository,
  ],
  exports: [
    UnmigratedDataCheck,
    SingleTenantMigration,
    ChannelOwnersMigration,
    EventObjectsMigration,
    WebhookClaimsMigration,
  ],
})
export class MigrationsModule {}

import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { PlatformProjectsModule } from '../platform-projects/platform-projects.module';
import { UsersModule } from '../users/users.module';
import { LegacyDataRepository } from './legacy-data.repository';
import { SingleTenantMigration } from './single-tenant.migration';
import { UnmigratedDataCheck } from './unmigrated-data.check';

/** The start-up warning about records without a project, and the migration that gives them one (`npm run migrate`). */
@Module({
  imports: [AccountsModule, PlatformProjectsModule, UsersModule],
  providers: [UnmigratedDataCheck, SingleTenantMigration, LegacyDataRepository],
  exports: [UnmigratedDataCheck, SingleTenantMigration],
})
export class MigrationsModule {}

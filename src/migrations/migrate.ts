import { runCommand } from './command';
import { ChannelOwnersMigration, describeChannelOwners } from './channel-owners.migration';
import { MigrationsModule } from './migrations.module';
import { describeMigration, SingleTenantMigration } from './single-tenant.migration';

/**
 * `npm run migrate`: gives the records of a single-tenant build their account and platform project,
 * then every channel without collaborators its owner (so channels moved by the first step get one too).
 */
runCommand('Migration', { imports: [MigrationsModule] }, async (context) => [
  ...describeMigration(await context.get(SingleTenantMigration).run()),
  ...describeChannelOwners(await context.get(ChannelOwnersMigration).run()),
]);

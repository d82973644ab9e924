import { runCommand } from './command';
import { MigrationsModule } from './migrations.module';
import { describeMigration, SingleTenantMigration } from './single-tenant.migration';

/** `npm run migrate`: gives the records of a single-tenant build their account and platform project. */
runCommand('Migration', { imports: [MigrationsModule] }, async (context) => describeMigration(await context.get(SingleTenantMigration).run()));

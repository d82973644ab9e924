import { UsersService } from '../identity/users/users.service';
import { passkeysConfig } from '../config/passkeys.config';
import { runCommand } from './command';
import { ChannelOwnersMigration, describeChannelOwners } from './channel-owners.migration';
import { EventObjectsMigration } from './event-objects.migration';
import { MigrationsModule } from './migrations.module';
import { describeMigration, SingleTenantMigration } from './single-tenant.migration';
import { WebhookClaimsMigration } from './webhook-claims.migration';

/**
 * `npm run migrate`: gives the records of a single-tenant build their account and platform project,
 * then every channel without collaborators its owner (so channels moved by the first step get one too),
 * and counts the users made before email verification existed as verified (nobody is locked out of
 * inviting or moving money by a check they never had the mail for), names the object of each event
 * recorded before events named it, and drops the collection of webhook attempt claims (kept in their
 * delivery now). Each step is idempotent.
 */
// Accounts count a passkey as a second factor: the passkeys module comes with them, and its settings.
runCommand('Migration', { imports: [MigrationsModule], config: [passkeysConfig] }, async (context) => {
  const lines = [
    ...describeMigration(await context.get(SingleTenantMigration).run()),
    ...describeChannelOwners(await context.get(ChannelOwnersMigration).run()),
  ];
  const verified = await context.get(UsersService).markLegacyVerified(new Date());
  lines.push(
    verified > 0
      ? `Users made before email verification, now counted as verified: ${verified}.`
      : 'Every user already has an email verification state.',
  );
  lines.push(await context.get(EventObjectsMigration).run());
  lines.push(await context.get(WebhookClaimsMigration).run());
  return lines;
});

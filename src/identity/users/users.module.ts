import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { User, UserSchema } from './user.schema';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';
import { CredentialsChanges } from './credentials-changes';
import { SecurityNotices } from './security-notices';
import { UserAudit } from './user-audit';
import { UserSessionsRef } from './users.ports';

/**
 * People who log in: the user record (with the password hash, the second factors' secrets and the
 * credentials version the other identity modules write through `UsersService`), what a user's own
 * action leaves in the audit log of each of their accounts (`UserAudit`), the mails that tell them
 * their account's security changed (`SecurityNotices`), and the ports of `users.ports.ts`:
 * `UserSessions`, through which the identity modules reach the sessions module (which provides it),
 * and `SecondFactorLookup`, through which accounts ask the factors module.
 * Invariants: an email belongs to one user across the service (a unique index on the lower-cased
 * email); the password hash and second-factor secrets are never read unless a read asks for them
 * (`select: false`); `credentialsChangedAt` moves with every password change, reset or factor
 * removal, and the tokens and sessions bound to an older one are refused (CredentialsChanges). Users
 * belong to accounts only through memberships (src/accounts), read through tenancy's
 * `MembershipLookup`.
 */
@Module({
  imports: [MongooseModule.forFeature([{ name: User.name, schema: UserSchema }])],
  providers: [UsersRepository, UsersService, CredentialsChanges, UserAudit, SecurityNotices, UserSessionsRef],
  exports: [UsersService, CredentialsChanges, UserAudit, SecurityNotices, UserSessionsRef],
})
export class UsersModule {}

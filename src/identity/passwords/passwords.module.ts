import { Module } from '@nestjs/common';
import { AttemptsModule } from '../attempts/attempts.module';
import { FactorsModule } from '../factors/factors.module';
import { UsersModule } from '../users/users.module';
import { CredentialsCheck } from './credentials-check';
import { PasswordChanges } from './password-changes.service';
import { PasswordHasher } from './password-hasher';
import { PasswordsController } from './passwords.controller';

/**
 * Passwords: their hashing (bcrypt, `PasswordHasher`), the check of a password sign-in and its code
 * (`CredentialsCheck`, shared by the session sign-in and the access token's login, so both give the
 * same strength), a user's own change (`PUT /api/v1/me/password`) and a reset's new password. The
 * password and its credentials version are stored on the user (src/identity/users); the sessions a
 * change ends are reached through `UserSessions`, which the sessions module provides.
 * Invariant: a new password (changed or reset) moves the user's credentials version, which every
 * token and session issued before it is refused against; every password offered is counted toward
 * the login limits before it is compared, and an unknown email costs the same bcrypt work.
 */
@Module({
  imports: [UsersModule, AttemptsModule, FactorsModule],
  controllers: [PasswordsController],
  providers: [PasswordHasher, CredentialsCheck, PasswordChanges],
  exports: [PasswordHasher, CredentialsCheck, PasswordChanges],
})
export class PasswordsModule {}

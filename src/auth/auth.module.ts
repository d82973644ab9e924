import { Module } from '@nestjs/common';
import { AccessTokensModule } from '../access/tokens/access-tokens.module';
import { AccountsModule } from '../accounts/accounts.module';
import { AttemptsModule } from '../identity/attempts/attempts.module';
import { EmailLinksModule } from '../identity/email-links/email-links.module';
import { PasswordsModule } from '../identity/passwords/passwords.module';
import { UsersModule } from '../identity/users/users.module';
import { InvitationsModule } from '../invitations/invitations.module';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';

/**
 * The spec's signup, login and `me` (`/api/v1/signup`, `/api/v1/login`, `/api/v1/me`): a user with
 * their account (or the inviting one's membership), and an access token issued (src/access/tokens)
 * from the same check of the password and the code as a session sign-in (CredentialsCheck,
 * src/identity/passwords). Invariants: a signup is checked (invitation, fields) before anything is
 * written, and one refused leaves no user behind; a user with a second factor gets no token from
 * the password alone; a token carries the credentials version its login read, so a later change
 * of password or factors ends it.
 */
@Module({
  imports: [
    UsersModule,
    AccountsModule,
    InvitationsModule,
    AttemptsModule,
    PasswordsModule,
    EmailLinksModule,
    AccessTokensModule,
  ],
  controllers: [AuthController],
  providers: [AuthService],
})
export class AuthModule {}

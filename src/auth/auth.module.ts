import { Module } from '@nestjs/common';
import { createSecretKey } from 'node:crypto';
import { ConfigType } from '@nestjs/config';
import { JwtModule } from '@nestjs/jwt';
import { MongooseModule } from '@nestjs/mongoose';
import { authConfig } from '../config/auth.config';
import { UsersModule } from '../identity/users/users.module';
import { AccountsModule } from '../accounts/accounts.module';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { InvitationsModule } from '../invitations/invitations.module';
import { PlatformProjectsModule } from '../platform-projects/platform-projects.module';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { AttemptsModule } from '../identity/attempts/attempts.module';
import { SessionsModule } from '../sessions/sessions.module';
import {
  EmailLink,
  EmailLinkSchema,
  EmailLinkUse,
  EmailLinkUseSchema,
} from '../identity/email-links/email-link.schema';
import { EmailLinksController } from '../identity/email-links/email-links.controller';
import { EmailLinksRepository } from '../identity/email-links/email-links.repository';
import { EmailLinksService } from '../identity/email-links/email-links.service';

/**
 * Signup, login, the mailed links (email verification, password reset), and the providers of the
 * access guard's authentication and tenancy (src/access). Invariants: a token issued before its
 * user's last password change is refused; an unknown email and a wrong password answer alike; every
 * login attempt is recorded before the password is checked (src/auth/attempts), and a mailed link's
 * token is stored only as its SHA-256 and used once.
 */
@Module({
  imports: [
    UsersModule,
    AccountsModule,
    InvitationsModule,
    ApiKeysModule,
    PlatformProjectsModule,
    AttemptsModule,
    SessionsModule,
    MongooseModule.forFeature([
      { name: EmailLink.name, schema: EmailLinkSchema },
      { name: EmailLinkUse.name, schema: EmailLinkUseSchema },
    ]),
    JwtModule.registerAsync({
      inject: [authConfig.KEY],
      useFactory: (config: ConfigType<typeof authConfig>) => {
        // A KeyObject, not the string: given a string, jsonwebtoken first tries (and fails) to read
        // it as a public key on every verify, which cost about half a millisecond per request.
        const key = createSecretKey(Buffer.from(config.jwtSecret, 'utf8'));
        return {
          secretOrKeyProvider: () => key,
          signOptions: {
            algorithm: 'HS256',
            expiresIn: (/^\d+$/.test(config.jwtExpiresIn) ? Number(config.jwtExpiresIn) : config.jwtExpiresIn) as never,
          },
          verifyOptions: { algorithms: ['HS256'] },
        };
      },
    }),
  ],
  controllers: [AuthController, EmailLinksController],
  providers: [AuthService, EmailLinksRepository, EmailLinksService],
  // The access module verifies the tokens this module signs.
  exports: [JwtModule],
})
export class AuthModule {}

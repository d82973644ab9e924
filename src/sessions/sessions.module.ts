import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { AccountsModule } from '../accounts/accounts.module';
import { AttemptsModule } from '../identity/attempts/attempts.module';
import { FactorsModule } from '../identity/factors/factors.module';
import { PasskeysModule } from '../identity/passkeys/passkeys.module';
import { PasswordsModule } from '../identity/passwords/passwords.module';
import { UserSessions } from '../identity/users/users.ports';
import { UsersModule } from '../identity/users/users.module';
import { Session, SessionSchema } from './session.schema';
import { SessionsController } from './sessions.controller';
import { SessionsOnCredentialChange } from './sessions-on-credential-change';
import { SessionsRepository } from './sessions.repository';
import { SessionsService } from './sessions.service';
import { SignInService } from './sign-in.service';
import { StepUpService } from './step-up.service';

/**
 * Dashboard sessions, the cookie ones only: the session record and its repository, the cookie, the
 * sessions' life (SessionsService: open, replace, authenticate, list, end), the `/api/v1/sessions`
 * routes, signing in (SignInService: a session opened from the factors the identity modules proved,
 * a password and a code, or a passkey) and stepping up (StepUpService: a session's assurance raised
 * by proving a factor again). What a change of credentials does to the sessions is the
 * `UserSessions` port the identity modules ask through, provided here (SessionsOnCredentialChange);
 * passwords, factors and passkeys themselves are src/identity's.
 * Invariants: a session's token is stored only as its SHA-256 and gets a new id at every sign-in
 * and change of assurance; a request with the cookie that changes anything needs an allowed
 * `Origin`; step-up routes need a factor proven within `STEP_UP_MINUTES`.
 */
@Module({
  imports: [
    UsersModule,
    AccountsModule,
    AttemptsModule,
    PasskeysModule,
    FactorsModule,
    PasswordsModule,
    MongooseModule.forFeature([{ name: Session.name, schema: SessionSchema }]),
  ],
  controllers: [SessionsController],
  providers: [
    SessionsRepository,
    SessionsService,
    SessionsOnCredentialChange,
    // The identity modules reach the user's sessions through this port, without importing this module.
    { provide: UserSessions, useExisting: SessionsOnCredentialChange },
    SignInService,
    StepUpService,
  ],
  exports: [SessionsService, StepUpService, UserSessions],
})
export class SessionsModule {}

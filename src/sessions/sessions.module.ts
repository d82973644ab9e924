import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { AccountsModule } from '../accounts/accounts.module';
import { AttemptsModule } from '../identity/attempts/attempts.module';
import { fieldEncryptionProviders } from '../settings/field-encryption.provider';
import { PasskeysModule } from '../identity/passkeys/passkeys.module';
import { SettingsModule } from '../settings/settings.module';
import { UsersModule } from '../identity/users/users.module';
import { MfaCodeUse, MfaCodeUseSchema } from '../identity/factors/mfa-code-use.schema';
import { MfaCodeUsesRepository } from '../identity/factors/mfa-code-uses.repository';
import { MfaService } from '../identity/factors/mfa.service';
import { Session, SessionSchema } from './session.schema';
import { PasskeysController } from '../identity/passkeys/passkeys.controller';
import { SessionsController } from './sessions.controller';
import { SessionsRepository } from './sessions.repository';
import { SessionsService } from './sessions.service';
import { SignInService } from './sign-in.service';
import { StepUpService } from './step-up.service';
import { UserCredentialsService } from '../identity/passwords/password-changes.service';
import { SecurityNotices } from '../identity/users/security-notices';

/**
 * Dashboard sessions (the cookie), the password change, second factors (TOTP, recovery codes,
 * signing in and stepping up with a passkey, a user's passkeys), and the mails telling of them: one
 * service per job (SessionsService keeps the sessions themselves; SignInService, StepUpService and
 * UserCredentialsService change them only through its `open` and `replace`).
 * Invariants: a session's token is stored only as its SHA-256 and gets a new id at every sign-in
 * and change of assurance; a request with the cookie that changes anything needs an allowed
 * `Origin`; a TOTP code and a recovery code are each accepted once, even sent twice at once;
 * step-up routes need a factor proven within `STEP_UP_MINUTES`.
 */
@Module({
  imports: [
    UsersModule,
    AccountsModule,
    AttemptsModule,
    SettingsModule,
    PasskeysModule,
    MongooseModule.forFeature([
      { name: Session.name, schema: SessionSchema },
      { name: MfaCodeUse.name, schema: MfaCodeUseSchema },
    ]),
  ],
  controllers: [SessionsController, PasskeysController],
  providers: [
    SessionsRepository,
    SessionsService,
    SignInService,
    StepUpService,
    UserCredentialsService,
    SecurityNotices,
    MfaCodeUsesRepository,
    MfaService,
    ...fieldEncryptionProviders,
  ],
  exports: [SessionsService, SignInService, StepUpService],
})
export class SessionsModule {}

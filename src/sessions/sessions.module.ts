import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { AccountsModule } from '../accounts/accounts.module';
import { AttemptsModule } from '../auth/attempts/attempts.module';
import { fieldEncryptionProviders } from '../config/field-encryption.provider';
import { SettingsModule } from '../settings/settings.module';
import { UsersModule } from '../users/users.module';
import { MfaCodeUse, MfaCodeUseSchema } from './mfa-code-use.schema';
import { MfaCodeUsesRepository } from './mfa-code-uses.repository';
import { MfaService } from './mfa.service';
import { Session, SessionSchema } from './session.schema';
import { SessionsController } from './sessions.controller';
import { SessionsRepository } from './sessions.repository';
import { SessionsService } from './sessions.service';
import { SecurityNotices } from './security-notices';

/** Dashboard sessions (the cookie), the password change, second factors (TOTP, recovery codes), and the mails telling of them. */
@Module({
  imports: [
    UsersModule,
    AccountsModule,
    AttemptsModule,
    SettingsModule,
    MongooseModule.forFeature([
      { name: Session.name, schema: SessionSchema },
      { name: MfaCodeUse.name, schema: MfaCodeUseSchema },
    ]),
  ],
  controllers: [SessionsController],
  providers: [SessionsRepository, SessionsService, SecurityNotices, MfaCodeUsesRepository, MfaService, ...fieldEncryptionProviders],
  exports: [SessionsService],
})
export class SessionsModule {}

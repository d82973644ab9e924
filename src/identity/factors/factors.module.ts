import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { fieldEncryptionProviders } from '../../settings/field-encryption.provider';
import { SettingsModule } from '../../settings/settings.module';
import { AttemptsModule } from '../attempts/attempts.module';
import { PasskeysModule } from '../passkeys/passkeys.module';
import { SecondFactorLookup } from '../users/users.ports';
import { UsersModule } from '../users/users.module';
import { FactorChanges } from './factor-changes.service';
import { FactorsController } from './factors.controller';
import { MfaCodeUse, MfaCodeUseSchema } from './mfa-code-use.schema';
import { MfaCodeUsesRepository } from './mfa-code-uses.repository';
import { MfaService } from './mfa.service';

/**
 * Second factors: TOTP (its secret, encrypted, bound to the user and the field), recovery codes,
 * the records of codes used, whether a user has any factor (TOTP or a passkey), and the routes that
 * show them and turn TOTP on or off (`/api/v1/me/mfa`); passkeys are src/identity/passkeys. A change
 * reaches the user's sessions through `UserSessions` (src/identity/users), which the sessions module
 * provides; signing in and stepping up with a code are the sessions module's, which asks here.
 * Invariant: a code is accepted at most once, even sent twice at once on two instances (its claim
 * is an insert against a unique `_id`), and never one of a time step at or before the last one
 * accepted; every code offered counts toward the user's code limit before it is checked.
 */
@Module({
  imports: [
    UsersModule,
    AttemptsModule,
    PasskeysModule,
    SettingsModule,
    MongooseModule.forFeature([{ name: MfaCodeUse.name, schema: MfaCodeUseSchema }]),
  ],
  controllers: [FactorsController],
  providers: [
    MfaCodeUsesRepository,
    MfaService,
    FactorChanges,
    ...fieldEncryptionProviders,
    // The accounts module asks whether a user has a factor through this, without importing this module.
    { provide: SecondFactorLookup, useExisting: MfaService },
  ],
  exports: [MfaService, SecondFactorLookup],
})
export class FactorsModule {}

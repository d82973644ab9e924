import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import {
  PasskeyChallenge,
  PasskeyChallengeSchema,
  PasskeyChallengeUse,
  PasskeyChallengeUseSchema,
} from './passkey-challenge.schema';
import { AttemptsModule } from '../attempts/attempts.module';
import { UsersModule } from '../users/users.module';
import { PasskeyChanges } from './passkey-changes.service';
import { Passkey, PasskeySchema } from './passkey.schema';
import { PasskeysController } from './passkeys.controller';
import { PasskeysRepository } from './passkeys.repository';
import { PasskeysService } from './passkeys.service';

/**
 * Passkeys: the WebAuthn ceremonies, the credentials they keep, and the routes that register, list,
 * rename and remove a user's own (`/api/v1/me/passkeys`, audited and mailed). Signing in and
 * stepping up with one are the sessions module's (src/sessions), which asks here; a registration or
 * a removal reaches the user's sessions through `UserSessions` (src/identity/users).
 * Invariant: an authenticator's answer counts at most once (its challenge claimed by a unique insert
 * before it is verified, and accepted for a few minutes only), and a signature counter that does
 * not move forward is refused (PasskeysService).
 */
@Module({
  imports: [
    UsersModule,
    AttemptsModule,
    MongooseModule.forFeature([
      { name: Passkey.name, schema: PasskeySchema },
      { name: PasskeyChallenge.name, schema: PasskeyChallengeSchema },
      { name: PasskeyChallengeUse.name, schema: PasskeyChallengeUseSchema },
    ]),
  ],
  controllers: [PasskeysController],
  providers: [PasskeysRepository, PasskeysService, PasskeyChanges],
  exports: [PasskeysService],
})
export class PasskeysModule {}

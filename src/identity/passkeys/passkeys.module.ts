import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import {
  PasskeyChallenge,
  PasskeyChallengeSchema,
  PasskeyChallengeUse,
  PasskeyChallengeUseSchema,
} from './passkey-challenge.schema';
import { Passkey, PasskeySchema } from './passkey.schema';
import { PasskeysRepository } from './passkeys.repository';
import { PasskeysService } from './passkeys.service';

/**
 * Passkeys: the WebAuthn ceremonies and the credentials they keep. Signing in with one, the audit
 * and the mails are the sessions module's (src/sessions), which holds every second factor's routes.
 * Invariant: an authenticator's answer counts at most once (its challenge claimed by a unique
 * insert before it is verified, and accepted for a few minutes only), and a signature counter that
 * does not move forward is refused (PasskeysService).
 */
@Module({
  imports: [
    MongooseModule.forFeature([
      { name: Passkey.name, schema: PasskeySchema },
      { name: PasskeyChallenge.name, schema: PasskeyChallengeSchema },
      { name: PasskeyChallengeUse.name, schema: PasskeyChallengeUseSchema },
    ]),
  ],
  providers: [PasskeysRepository, PasskeysService],
  exports: [PasskeysService],
})
export class PasskeysModule {}

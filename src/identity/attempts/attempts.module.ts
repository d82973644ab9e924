import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { AttemptLimiter } from './attempt-limiter.service';
import { AuthAttempt, AuthAttemptSchema } from './auth-attempt.schema';
import { KnownLoginAddress, KnownLoginAddressSchema } from './known-login-address.schema';
import { LoginAttemptsRepository } from './login-attempts.repository';

/**
 * The limits on password and code guesses, shared by logins, sessions and second factors.
 * Invariant: each attempt is recorded in the database before the password or code is checked, and
 * counted per (email, address) pair, per address and per email, so every instance shares the counts
 * and a stranger's guesses block the stranger, not the user.
 */
@Module({
  imports: [
    MongooseModule.forFeature([
      { name: AuthAttempt.name, schema: AuthAttemptSchema },
      { name: KnownLoginAddress.name, schema: KnownLoginAddressSchema },
    ]),
  ],
  providers: [AttemptLimiter, LoginAttemptsRepository],
  exports: [AttemptLimiter],
})
export class AttemptsModule {}

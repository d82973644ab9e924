import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { AttemptLimiter } from './attempt-limiter.service';
import { AuthAttempt, AuthAttemptSchema } from './auth-attempt.schema';
import { KnownLoginAddress, KnownLoginAddressSchema } from './known-login-address.schema';
import { LoginAttemptsRepository } from './login-attempts.repository';

/** The limits on password and code guesses, shared by logins, sessions and second factors. */
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

import { Logger } from '@nestjs/common';
import { registerAs } from '@nestjs/config';
import { randomBytes } from 'node:crypto';
import { validateEnvironment } from './env.validation';

/** Kept for the life of the process so every token of a development run verifies. */
let generatedSecret: string | undefined;

function developmentSecret(): string {
  if (!generatedSecret) {
    generatedSecret = randomBytes(48).toString('base64url');
    new Logger('AuthConfig').warn(
      'JWT_SECRET is not set: using a random secret for this process. Tokens stop working on restart. Set JWT_SECRET outside development.',
    );
  }
  return generatedSecret;
}

export const authConfig = registerAs('auth', () => {
  const env = validateEnvironment(process.env);
  return {
    jwtSecret: env.JWT_SECRET ?? developmentSecret(),
    jwtExpiresIn: env.JWT_EXPIRES_IN,
    bcryptRounds: env.BCRYPT_ROUNDS,
    loginMaxFailures: env.LOGIN_MAX_FAILURES,
    loginFailureWindowSeconds: env.LOGIN_FAILURE_WINDOW_SECONDS,
  };
});

export type AuthConfig = ReturnType<typeof authConfig>;

import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { EnvironmentVariables } from './env.validation';
import { configNamespace } from './namespace';

export const DEVELOPMENT_SECRET_FILE = 'jwt-secret';
const MIN_SECRET_LENGTH = 32;

/** Secrets already settled in this process, by file. */
const settled = new Map<string, string>();

function readSecret(file: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const secret = text.trim();
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new Error(
      `${file} holds no usable JWT secret (at least ${MIN_SECRET_LENGTH} characters): delete it to have a new one made, or set JWT_SECRET`,
    );
  }
  return secret;
}

/**
 * The development token secret kept in `DATA_DIR/jwt-secret`: read when the file exists, otherwise
 * made once (48 random bytes, file mode 0600). Every instance started with the same `DATA_DIR`
 * signs and verifies with the same secret, across restarts too. Two instances starting at the same
 * moment agree: the file appears whole or not at all (written aside, then hard-linked into place),
 * and whoever loses the race reads the winner's.
 */
export function developmentSecretFromDataDir(dataDir: string): { secret: string; file: string; created: boolean } {
  const file = resolve(join(dataDir, DEVELOPMENT_SECRET_FILE));
  const existing = readSecret(file);
  if (existing) return { secret: existing, file, created: false };

  mkdirSync(dataDir, { recursive: true });
  const candidate = randomBytes(48).toString('base64url');
  const aside = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(aside, `${candidate}\n`, { mode: 0o600, flag: 'wx' });
  let created = true;
  try {
    linkSync(aside, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    created = false;
  } finally {
    unlinkSync(aside);
  }
  const secret = readSecret(file);
  if (!secret) throw new Error(`${file} disappeared while it was being created`);
  return { secret, file, created };
}

/** Development only: env validation requires JWT_SECRET under any other NODE_ENV. */
function developmentSecret(dataDir: string): string {
  const key = resolve(join(dataDir, DEVELOPMENT_SECRET_FILE));
  const known = settled.get(key);
  if (known) return known;
  const { secret, file, created } = developmentSecretFromDataDir(dataDir);
  settled.set(key, secret);
  new Logger('AuthConfig').warn(
    `JWT_SECRET is not set: ${created ? 'created' : 'using'} the development secret in ${file}, ` +
      'shared by every instance with this DATA_DIR. Set JWT_SECRET outside development.',
  );
  return secret;
}

/** The token signing secret: JWT_SECRET, else (development only) the one kept in DATA_DIR. */
export function jwtSecret(env: EnvironmentVariables): string {
  return env.JWT_SECRET ?? developmentSecret(env.DATA_DIR);
}

export const authConfig = configNamespace('auth', (env) => ({
  jwtSecret: jwtSecret(env),
  jwtExpiresIn: env.JWT_EXPIRES_IN,
  bcryptRounds: env.BCRYPT_ROUNDS,
  loginMaxFailures: env.LOGIN_MAX_FAILURES,
  mfaMaxFailures: env.MFA_MAX_FAILURES,
  loginFailureWindowSeconds: env.LOGIN_FAILURE_WINDOW_SECONDS,
  loginMaxFailuresPerClient: env.LOGIN_MAX_FAILURES_PER_CLIENT,
  loginMaxFailuresPerEmail: env.LOGIN_MAX_FAILURES_PER_EMAIL,
  passkeyOptionsMaxPerClient: env.PASSKEY_OPTIONS_MAX_PER_CLIENT,
  signupMaxPerClient: env.SIGNUP_MAX_PER_CLIENT,
  signupWindowSeconds: env.SIGNUP_WINDOW_SECONDS,
}));

export type AuthConfig = ReturnType<typeof authConfig.build>;

import { registerAs } from '@nestjs/config';
import { createHmac } from 'node:crypto';
import { authConfig } from './auth.config';
import { validateEnvironment } from './env.validation';

/**
 * Key of the card fingerprints (HMAC-SHA256 of the card number). `CARD_FINGERPRINT_KEY` when set;
 * otherwise a key derived from the token secret, so a deployment needs one secret less. Changing
 * either secret changes every new fingerprint, so set `CARD_FINGERPRINT_KEY` where fingerprints
 * must stay comparable across secret rotations.
 */
export const financeConfig = registerAs('finance', () => {
  const env = validateEnvironment(process.env);
  const cardFingerprintKey =
    env.CARD_FINGERPRINT_KEY ?? createHmac('sha256', authConfig().jwtSecret).update('card-fingerprint-key').digest('hex');
  return { cardFingerprintKey };
});

export type FinanceConfig = ReturnType<typeof financeConfig>;

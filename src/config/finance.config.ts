import { registerAs } from '@nestjs/config';
import { createHmac } from 'node:crypto';
import { authConfig } from './auth.config';
import { validateEnvironment } from './env.validation';

/**
 * Master key of the card fingerprints: each account's key is HMAC-SHA256(master key, account id),
 * and a fingerprint is HMAC-SHA256 of the card number with its account's key. `CARD_FINGERPRINT_KEY`
 * when set; otherwise a key derived from the token secret, so a deployment needs one secret less.
 * Changing either secret changes every new fingerprint, so set `CARD_FINGERPRINT_KEY` where
 * fingerprints must stay comparable across secret rotations.
 */
export const financeConfig = registerAs('finance', () => {
  const env = validateEnvironment(process.env);
  const cardFingerprintKey =
    env.CARD_FINGERPRINT_KEY ?? createHmac('sha256', authConfig().jwtSecret).update('card-fingerprint-key').digest('hex');
  /**
   * Key of the Idempotency-Key request fingerprints (HMAC-SHA256 of method, URL and body), derived
   * from the same key: a stored fingerprint cannot be matched against guessed bodies (a card number
   * in a card's body, say) without the server's secret.
   */
  const idempotencyFingerprintKey = createHmac('sha256', cardFingerprintKey).update('idempotency-request-fingerprint').digest('hex');
  return { cardFingerprintKey, idempotencyFingerprintKey };
});

export type FinanceConfig = ReturnType<typeof financeConfig>;

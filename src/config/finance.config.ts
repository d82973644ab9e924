import { createHmac } from 'node:crypto';
import { parseEncryptionKeys } from '../common/crypto/field-encryption';
import { jwtSecret } from './auth.config';
import type { EnvironmentVariables } from './env.validation';
import { configNamespace } from './namespace';

/** A development-only key, derived from the development token secret so that nothing else needs setting. */
function developmentKey(env: EnvironmentVariables, purpose: string): Buffer {
  return createHmac('sha256', jwtSecret(env)).update(purpose).digest();
}

/**
 * Master key of the card fingerprints: each account's key is HMAC-SHA256(master key, account id),
 * and a fingerprint is HMAC-SHA256 of the card number with its account's key. `CARD_FINGERPRINT_KEY`
 * is a setting of its own, required outside development, so rotating the token secret never changes
 * a fingerprint. `FIELD_ENCRYPTION_KEY` (required outside development too) encrypts fields at rest.
 */
export const financeConfig = configNamespace('finance', (env) => {
  const cardFingerprintKey = env.CARD_FINGERPRINT_KEY ?? developmentKey(env, 'card-fingerprint-key').toString('hex');
  const fieldEncryptionKeys = parseEncryptionKeys(
    env.FIELD_ENCRYPTION_KEY ?? `dev:${developmentKey(env, 'field-encryption-key').toString('base64')}`,
  );
  /**
   * Key of the Idempotency-Key request fingerprints (HMAC-SHA256 of method, URL and body), derived
   * from the same key: a stored fingerprint cannot be matched against guessed bodies (a card number
   * in a card's body, say) without the server's secret.
   */
  const idempotencyFingerprintKey = createHmac('sha256', cardFingerprintKey)
    .update('idempotency-request-fingerprint')
    .digest('hex');
  /** Whether `enc:v1` values are read; null: until `npm run reencrypt` has run (see LegacyCiphertextPolicy). */
  const acceptLegacyCiphertext =
    env.ACCEPT_LEGACY_CIPHERTEXT === undefined ? null : env.ACCEPT_LEGACY_CIPHERTEXT === 'true';
  return { cardFingerprintKey, idempotencyFingerprintKey, fieldEncryptionKeys, acceptLegacyCiphertext };
});

export type FinanceConfig = ReturnType<typeof financeConfig.build>;

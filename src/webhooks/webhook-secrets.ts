import type { FieldBinding } from '../common/crypto/field-encryption';

/** Where an endpoint's signing secret is stored, as bound into its ciphertext. */
export function secretBinding(endpointId: string): FieldBinding {
  return { record: endpointId.toLowerCase(), field: 'webhookSecret' };
}

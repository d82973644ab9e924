import type { PasskeyView } from './dto/passkey.response';
import type { Passkey } from './passkey.schema';

/** A passkey as its user sees it: never its public key or counter. */
export function toPasskeyView(passkey: Passkey): PasskeyView {
  return {
    id: String(passkey._id),
    name: passkey.name,
    synced: passkey.deviceType === 'multiDevice',
    createdAt: new Date(passkey.createdAt).toISOString(),
    lastUsedAt: passkey.lastUsedAt ? new Date(passkey.lastUsedAt).toISOString() : null,
  };
}

import type { ApiKey } from './api-key.schema';
import type { ApiKeyView, CreatedApiKeyView } from './dto/api-key.response';

const iso = (date: Date | null | undefined): string | null => (date ? new Date(date).toISOString() : null);

/** Copies the view's fields only: the stored hash has no way out. */
export function toApiKeyView(key: ApiKey): ApiKeyView {
  return {
    id: String(key._id),
    name: key.name,
    kind: key.kind ?? 'secret',
    start: key.start,
    scopes: key.scopes ? [...key.scopes] : null,
    createdAt: new Date(key.createdAt).toISOString(),
    expiresAt: iso(key.expiresAt),
    revokedAt: iso(key.revokedAt),
    lastUsedAt: iso(key.lastUsedAt),
  };
}

export function toCreatedApiKeyView(key: ApiKey, secret: string): CreatedApiKeyView {
  return { ...toApiKeyView(key), key: secret };
}

import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema';

/** Every request and response shape comes from the generated schema: nothing here is written by hand. */
export type Schemas = components['schemas'];
export type ErrorBody = Schemas['ErrorResponseDto'];

/** What the client sends with each request: the user's token and the platform project the data pages act in. */
export interface Credentials {
  token: string | null;
  projectId: string | null;
}

const credentials: Credentials = { token: null, projectId: null };

export function setCredentials(next: Partial<Credentials>): void {
  Object.assign(credentials, next);
}

// Requests under way, for the progress bar every page shows at the top.
type InFlightListener = (count: number) => void;
let inFlight = 0;
const inFlightListeners = new Set<InFlightListener>();
function changeInFlight(delta: number): void {
  inFlight += delta;
  for (const listener of inFlightListeners) listener(inFlight);
}
export function onInFlightChange(listener: InFlightListener): () => void {
  inFlightListeners.add(listener);
  return () => inFlightListeners.delete(listener);
}

const session: Middleware = {
  onRequest({ request }) {
    changeInFlight(1);
    if (credentials.token && !request.headers.has('Authorization')) request.headers.set('Authorization', `Bearer ${credentials.token}`);
    // Only the data routes read it; the others ignore it.
    if (credentials.projectId && !request.headers.has('X-Project-Id')) request.headers.set('X-Project-Id', credentials.projectId);
    return request;
  },
  onResponse() {
    changeInFlight(-1);
    return undefined;
  },
  onError() {
    changeInFlight(-1);
    return undefined;
  },
};

export const api = createClient<paths>({ baseUrl: window.location.origin });
api.use(session);

/** An answer that is not a success: the service's error body, split per field for forms. */
export class ApiError extends Error {
  readonly status: number;
  /** Validation messages by field name (`errors: [{ field, messages }]`). */
  readonly fields: Record<string, string[]>;

  constructor(status: number, body: Partial<ErrorBody> | undefined) {
    super(body?.message ?? (status === 0 ? 'The service could not be reached. Check your connection and try again.' : `Request failed (${status})`));
    this.name = 'ApiError';
    this.status = status;
    this.fields = {};
    for (const entry of body?.errors ?? []) this.fields[entry.field] = [...(this.fields[entry.field] ?? []), ...entry.messages];
  }
}

/** Listeners told when a request answers 401: the token expired or was refused, so the user logs in again. */
const unauthorizedListeners = new Set<() => void>();
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

/**
 * Awaits an openapi-fetch call and returns its typed data, or throws an ApiError built from the
 * error body. `call(api.GET('/v1/customers', { params: { query: { limit: 20 } } }))`.
 */
export async function call<T>(request: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await request;
  } catch {
    throw new ApiError(0, undefined);
  }
  if (result.response.ok) return result.data as T;
  const body = typeof result.error === 'object' && result.error !== null ? (result.error as Partial<ErrorBody>) : undefined;
  const error = new ApiError(result.response.status, body);
  // A wrong password at login (or when switching accounts) is a 401 too, and no reason to sign out.
  const isLogin = new URL(result.response.url, window.location.origin).pathname === '/api/v1/login';
  if (error.status === 401 && credentials.token && !isLogin) for (const listener of unauthorizedListeners) listener();
  throw error;
}

/** A fresh Idempotency-Key, so a retried create or refund is never applied twice. Works outside secure contexts too. */
export function idempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `dash_${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

import createClient, { type Middleware } from 'openapi-fetch';
import createQueryClient from 'openapi-react-query';
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

/** What changed: another user (a new token) forgets everything; another project only what the data routes answered. */
type CredentialsListener = (change: { token: boolean }) => void;
const credentialsListeners = new Set<CredentialsListener>();

/** Changes who asks and for which project; the listeners (the query cache) forget what the previous pair read. */
export function setCredentials(next: Partial<Credentials>): void {
  const before = { ...credentials };
  Object.assign(credentials, next);
  if (before.token === credentials.token && before.projectId === credentials.projectId) return;
  for (const listener of credentialsListeners) listener({ token: before.token !== credentials.token });
}
export function onCredentialsChange(listener: CredentialsListener): () => void {
  credentialsListeners.add(listener);
  return () => credentialsListeners.delete(listener);
}

/**
 * An answer that is not a success, or no answer at all (status 0). It carries the service's error
 * body as it came (`statusCode`, `error`, `message`, `errors`), so it is the error type the generated
 * client declares, plus `status` (the forms read the messages by field with `errorFields`).
 */
export class ApiError extends Error implements ErrorBody {
  readonly status: number;
  readonly statusCode: number;
  readonly error: string;
  readonly errors?: ErrorBody['errors'];

  constructor(status: number, body: Partial<ErrorBody> | undefined) {
    super(body?.message ?? (status === 0 ? 'The service could not be reached. Check your connection and try again.' : `Request failed (${status})`));
    this.name = 'ApiError';
    this.status = status;
    this.statusCode = status;
    this.error = body?.error ?? (status === 0 ? 'Network Error' : 'Error');
    this.errors = body?.errors;
  }
}

/** Whatever a request threw, as an ApiError. */
export function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  return new ApiError(0, { message: error instanceof Error ? error.message : 'Something went wrong' });
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

/** Listeners told when a request answers 401: the token expired or was refused, so the user logs in again. */
const unauthorizedListeners = new Set<() => void>();
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

/**
 * Adds the credentials, counts requests under way, and turns every failure into a thrown ApiError:
 * the query and mutation hooks, and `call`, then see one error type whatever went wrong.
 */
const session: Middleware = {
  onRequest({ request }) {
    changeInFlight(1);
    if (credentials.token && !request.headers.has('Authorization')) request.headers.set('Authorization', `Bearer ${credentials.token}`);
    // Only the data routes read it; the others ignore it.
    if (credentials.projectId && !request.headers.has('X-Project-Id')) request.headers.set('X-Project-Id', credentials.projectId);
    return request;
  },
  async onResponse({ request, response }) {
    changeInFlight(-1);
    if (response.ok) return undefined;
    const text = await response.clone().text();
    let body: Partial<ErrorBody> | undefined;
    try {
      const parsed: unknown = JSON.parse(text);
      body = typeof parsed === 'object' && parsed !== null ? (parsed as Partial<ErrorBody>) : undefined;
    } catch {
      body = undefined;
    }
    const error = new ApiError(response.status, body);
    // A wrong password at login (or when switching accounts) is a 401 too, and no reason to sign out.
    const isLogin = new URL(request.url).pathname === '/api/v1/login';
    if (error.status === 401 && credentials.token && !isLogin) for (const listener of unauthorizedListeners) listener();
    throw error;
  },
  onError({ error }) {
    changeInFlight(-1);
    // An aborted read (a page left before its answer) is no failure to show.
    if (error instanceof DOMException && error.name === 'AbortError') return error;
    return new ApiError(0, undefined);
  },
};

export const api = createClient<paths>({ baseUrl: window.location.origin });
api.use(session);

/** TanStack Query hooks over the same client: `$api.useQuery('get', '/v1/customers', { params })`. */
export const $api = createQueryClient(api);

/** Awaits an openapi-fetch call made outside a hook and returns its typed data (a failure was thrown as an ApiError). */
export async function call<T>(request: Promise<{ data?: T; response: Response }>): Promise<T> {
  try {
    return (await request).data as T;
  } catch (error) {
    throw asApiError(error);
  }
}

/** A fresh Idempotency-Key, so a retried create or refund is never applied twice. Works outside secure contexts too. */
export function idempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `dash_${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

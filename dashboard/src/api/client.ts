import createClient, { type Middleware } from 'openapi-fetch';
import createQueryClient from 'openapi-react-query';
import type { components, paths } from './schema';

/** Every request and response shape comes from the generated schema: nothing here is written by hand. */
export type Schemas = components['schemas'];
export type ErrorBody = Schemas['ErrorResponseDto'];

/**
 * What the client sends with each request besides the session cookie (which the browser keeps, out of
 * every script's reach): the platform project the data pages act in.
 */
export interface Credentials {
  projectId: string | null;
}

const credentials: Credentials = { projectId: null };

/** Another project: the listeners (the query cache) forget what the data routes answered for the previous one. */
type CredentialsListener = () => void;
const credentialsListeners = new Set<CredentialsListener>();

export function setCredentials(next: Partial<Credentials>): void {
  const before = credentials.projectId;
  Object.assign(credentials, next);
  if (before === credentials.projectId) return;
  for (const listener of credentialsListeners) listener();
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
  /** The reason of some refusals, for the dashboard to act on (`mfa_required`, `step_up_required`). */
  readonly code?: string;
  /** Seconds to wait, from a 429's Retry-After header. */
  retryAfter?: number;

  constructor(status: number, body: Partial<ErrorBody> | undefined) {
    super(
      body?.message ??
        (status === 0
          ? 'The service could not be reached. Check your connection and try again.'
          : `Request failed (${status})`),
    );
    this.name = 'ApiError';
    this.status = status;
    this.statusCode = status;
    this.error = body?.error ?? (status === 0 ? 'Network Error' : 'Error');
    this.errors = body?.errors;
    if (typeof body?.code === 'string') this.code = body.code;
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

/** Listeners told when a request answers 401: the session expired or was ended, so the user signs in again. */
const unauthorizedListeners = new Set<() => void>();
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

/**
 * Changes where a 401 means a wrong password, code or passkey, not an ended session: signing in (or
 * switching accounts, by password or passkey), proving the second factor again, and the forms that ask
 * for the current password or a code. A read answered 401 always means the session has ended.
 */
const PROOF_ROUTES = /^\/api\/v1\/(?:sessions(?:\/.*)?|me\/(?:password|mfa|passkeys)(?:\/.*)?)$/;
const isWrongProof = (request: Request) => request.method !== 'GET' && PROOF_ROUTES.test(new URL(request.url).pathname);

/**
 * Who proves the second factor again when an action answers 403 `step_up_required`: the dialog the
 * session provider shows. Resolves true once proven (the action is then sent again, once), false
 * when the person gave up.
 */
type StepUpHandler = () => Promise<boolean>;
let stepUpHandler: StepUpHandler | undefined;
export function onStepUpRequired(handler: StepUpHandler): () => void {
  stepUpHandler = handler;
  return () => {
    if (stepUpHandler === handler) stepUpHandler = undefined;
  };
}

/** A copy of each change as it was sent, its body unread: what a step-up sends again. Gone with the request. */
const resendable = new WeakMap<Request, Request>();

async function errorOf(response: Response): Promise<ApiError> {
  const text = await response.clone().text();
  let body: Partial<ErrorBody> | undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    body = typeof parsed === 'object' && parsed !== null ? (parsed as Partial<ErrorBody>) : undefined;
  } catch {
    body = undefined;
  }
  const error = new ApiError(response.status, body);
  const retryAfter = Number(response.headers.get('Retry-After'));
  if (retryAfter > 0) error.retryAfter = retryAfter;
  return error;
}

/**
 * Adds the project, counts requests under way, asks for a step-up where the service wants one, and
 * turns every failure into a thrown ApiError: the query and mutation hooks, and `call`, then see one
 * error type whatever went wrong. The session itself is the `sid` cookie, which only the browser
 * holds (HttpOnly) and sends to this origin alone; nothing here can read it.
 */
const session: Middleware = {
  onRequest({ request }) {
    changeInFlight(1);
    // Only the data routes read it; the others ignore it.
    if (credentials.projectId && !request.headers.has('X-Project-Id'))
      request.headers.set('X-Project-Id', credentials.projectId);
    if (request.method !== 'GET' && request.method !== 'HEAD') resendable.set(request, request.clone());
    return request;
  },
  async onResponse({ request, response }) {
    let answer = response;
    let error = answer.ok ? undefined : await errorOf(answer);
    const copy = resendable.get(request);
    resendable.delete(request);
    // The same request once more (its Idempotency-Key too: the refusal came before anything was done).
    if (error?.status === 403 && error.code === 'step_up_required' && copy && stepUpHandler) {
      if (await stepUpHandler()) {
        try {
          answer = await fetch(copy);
        } catch {
          changeInFlight(-1);
          throw new ApiError(0, undefined);
        }
        error = answer.ok ? undefined : await errorOf(answer);
      } else {
        error = new ApiError(403, {
          ...error,
          message: 'Not done: this action needs your second factor, and the confirmation was cancelled.',
        });
      }
    }
    changeInFlight(-1);
    if (!error) return answer === response ? undefined : answer;
    if (error.status === 401 && !isWrongProof(request)) for (const listener of unauthorizedListeners) listener();
    throw error;
  },
  onError({ request, error }) {
    changeInFlight(-1);
    resendable.delete(request);
    // An aborted read (a page left before its answer) is no failure to show.
    if (error instanceof DOMException && error.name === 'AbortError') return error;
    return new ApiError(0, undefined);
  },
};

// The cookie goes with this origin's requests only; no Authorization header is ever added.
export const api = createClient<paths>({ baseUrl: window.location.origin, credentials: 'same-origin' });
api.use(session);

/** TanStack Query hooks over the same client: `$api.useQuery('get', '/v1/customers', { params })`. */
export const $api = createQueryClient(api);

/**
 * A client of the routes `P` describes, with what `api` does to every request (the cookie, the
 * project, step-up, one error type): for routes whose types are written beside their pages.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export function clientFor<P extends {}>() {
  const client = createClient<P>({ baseUrl: window.location.origin, credentials: 'same-origin' });
  client.use(session);
  return client;
}

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

/**
 * The words of every refusal the API can give, for a person: a sentence saying what happened and,
 * where there is one, the action that gets them past it. The API's own message is shown only when it
 * is already a sentence for a person (no path, no field name, no code); everything else is worded
 * here, by the error's `code` first (CONTRACT.md, `ErrorResponseDto.code`) and by its status after.
 */

/** What a person can do about an error; the kit turns each into a button or a link. */
export type ErrorAction =
  /** Send the same request again (a failed read, a network error, an outage). */
  | { kind: 'retry' }
  /** Not before `at` (429 with Retry-After). */
  | { kind: 'retry-at'; at: Date }
  /** Mail the verification link again (403 `email_unverified`). */
  | { kind: 'resend-verification' }
  /** Set up an authenticator app or a passkey (403 `mfa_required` in an account that requires one). */
  | { kind: 'add-factor' }
  /** The session ended: sign in again. */
  | { kind: 'sign-in' };

export interface ErrorWords {
  sentence: string;
  action?: ErrorAction;
}

/** The shape the kit reads of a failure: an ApiError or an error body. */
export interface DescribedFailure {
  status?: number;
  statusCode: number;
  message: string;
  code?: string;
  /** Seconds, from a 429's Retry-After. */
  retryAfter?: number;
}

/** Each `code` the API answers, worded for a person. */
const BY_CODE: Record<string, (failure: DescribedFailure) => ErrorWords> = {
  mfa_required: (failure) =>
    failure.statusCode === 401
      ? { sentence: 'Enter the code of your authenticator app, or a recovery code, to sign in.' }
      : {
          sentence: 'This account requires two-step sign-in. Add a second factor, then sign in again with it.',
          action: { kind: 'add-factor' },
        },
  step_up_required: () => ({
    sentence: 'This action needs your second factor again. Confirm it, then try again.',
    action: { kind: 'retry' },
  }),
  email_unverified: () => ({
    sentence: 'Verify your email first: follow the link we mailed you, or have it sent again.',
    action: { kind: 'resend-verification' },
  }),
  channel_role_required: (failure) => ({
    sentence: clean(failure.message) ?? 'Your role in this channel does not allow this. Ask a manager of the channel.',
  }),
  last_channel_owner: () => ({
    sentence: 'A channel keeps one owner at least. Make another collaborator its owner first.',
  }),
  // The message names where the query stops parsing, in words (the search pages word it the same way).
  search_query_invalid: (failure) => ({
    sentence: `This search could not be read. ${clean(failure.message) ?? 'Check the words and filters, then try again.'}`,
  }),
  // An asset's processing error (`asset.error.code`).
  type_mismatch: () => ({ sentence: 'The file is not of the type its name or upload said. Upload it again.' }),
  checksum_mismatch: () => ({ sentence: 'The file arrived damaged. Upload it again.' }),
  unreadable: () => ({ sentence: 'The file could not be read as an image, audio or video. Upload another one.' }),
  upload_expired: () => ({ sentence: 'The upload was left unfinished too long. Start it again.' }),
};

/** The sentences of a status when the API's own message will not do. */
function byStatus(failure: DescribedFailure): ErrorWords {
  switch (failure.statusCode) {
    case 0:
      return {
        sentence: 'The service could not be reached. Check your connection and try again.',
        action: { kind: 'retry' },
      };
    case 401:
      return { sentence: 'Your session has ended. Sign in again.', action: { kind: 'sign-in' } };
    case 403:
      return { sentence: 'Your role does not allow this. Ask an admin of the account.' };
    case 404:
      return { sentence: 'This no longer exists, or belongs to another project.' };
    case 409:
      return { sentence: 'This conflicts with what is there now. Reload the page and try again.' };
    case 413:
      return { sentence: 'This is too large to send. Send something smaller.' };
    case 415:
      return { sentence: 'This kind of file is not accepted.' };
    case 429:
      return tooMany(failure);
    case 503:
      return { sentence: 'The service is busy or being updated. Try again in a moment.', action: { kind: 'retry' } };
    default:
      return failure.statusCode >= 500
        ? { sentence: 'Something went wrong on our side. Try again in a moment.', action: { kind: 'retry' } }
        : { sentence: 'The service refused this. Check what you entered and try again.' };
  }
}

function tooMany(failure: DescribedFailure): ErrorWords {
  if (!failure.retryAfter) return { sentence: 'Too many attempts. Wait a moment and try again.' };
  const at = new Date(Date.now() + failure.retryAfter * 1000);
  return {
    sentence: `Too many attempts. Try again at ${at.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })}.`,
    action: { kind: 'retry-at', at },
  };
}

/**
 * The API's message if a person can read it as it is: no path (`/api/v1/...`), no code in
 * backticks, no field name in camelCase, no query parameter; else undefined.
 */
function clean(message: string | undefined): string | undefined {
  if (!message) return undefined;
  if (/\/api\/|`|\?\w+=|\b[a-z]+[A-Z]\w*\b|\b\w+_\w+\b|Request failed \(\d+\)/.test(message)) return undefined;
  return message;
}

/** The words for a failure: by its code, else its own message when clean, else by its status. */
export function describeError(failure: DescribedFailure): ErrorWords {
  const byCode = failure.code ? BY_CODE[failure.code] : undefined;
  if (byCode) return byCode(failure);
  const status = byStatus(failure);
  // These statuses are the same sentence whatever the API said: the service, not the person's input.
  if ([0, 401, 429, 413, 415].includes(failure.statusCode) || failure.statusCode >= 500) {
    // A 401 with a clean message is a wrong password or code, answered on the form: no sign-in to offer.
    const own = failure.statusCode === 401 ? clean(failure.message) : undefined;
    return own ? { sentence: own } : status;
  }
  return { sentence: clean(failure.message) ?? status.sentence, action: status.action };
}

/** `enabledEvents` -> `Enabled events`, `address.postalCode` -> `Postal code`, `max_amount` -> `Max amount`. */
export function fieldWords(field: string): string {
  const last = field.split('.').pop() ?? field;
  const words = last
    .replace(/\[\d+\]/g, '')
    .replace(/_/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * A validation message with its field named in words: the API's messages start with the property
 * (`enabledEvents must contain at least 1 elements`), which a person did not type.
 */
export function validationWords(field: string, message: string): string {
  const last = field.split('.').pop() ?? field;
  const named = message.startsWith(`${field} `)
    ? `${fieldWords(field)}${message.slice(field.length)}`
    : message.startsWith(`${last} `)
      ? `${fieldWords(field)}${message.slice(last.length)}`
      : message;
  // Any other property name or path left in the sentence is put in words too.
  return named
    .replace(/\/api\/v\d+\/\S*/g, 'the service')
    .replace(/\b([a-z]+(?:[A-Z][a-z0-9]*)+)\b/g, (name) => fieldWords(name).toLowerCase());
}

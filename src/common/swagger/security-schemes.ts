/** The OpenAPI security scheme of a user's access token (from `POST /api/v1/login`): the document-wide default. */
export const USER_BEARER_SCHEME = 'bearer';

/** The OpenAPI security scheme of a platform project's API key (`sk_test_...`), accepted by routes whose access policy names `secretKey` (the data APIs) only. */
export const API_KEY_SCHEME = 'apiKey';

/** The optional header that names the platform project a request acts in. */
export const PROJECT_HEADER_NAME = 'X-Project-Id';

/** The OpenAPI security scheme of a dashboard session: the `sid` cookie set by `POST /api/v1/sessions`. */
export const SESSION_COOKIE_SCHEME = 'session';
/** The OpenAPI security scheme of a platform project's publishable key (`pk_test_...`), accepted by the `/viewer` routes only. */
export const PUBLISHABLE_KEY_SCHEME = 'publishableKey';

import helmet, { type HelmetOptions } from 'helmet';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Helmet's policy for the pages the service serves: the Swagger UI (`/docs`) and the finance
 * dashboard (`/dashboard`), both same-origin scripts and styles.
 */
export const PAGE_HELMET_OPTIONS: HelmetOptions = {
  contentSecurityPolicy: {
    directives: {
      defaultSrc: [`'self'`],
      styleSrc: [`'self'`, `'unsafe-inline'`],
      // blob: the dashboard shows an asset's thumbnail from bytes it read with the API's
      // credentials, which an <img> cannot send.
      imgSrc: [`'self'`, 'data:', 'blob:', 'validator.swagger.io'],
      scriptSrc: [`'self'`, `'unsafe-inline'`],
      // Helmet's default would make browsers fetch the Swagger UI's scripts and styles over https
      // whenever the service is reached over plain http by a host name (not localhost), so /docs
      // would render blank. HSTS still tells browsers to prefer https where it is served.
      upgradeInsecureRequests: null,
    },
  },
};

/** The paths of those pages and their files (`/docs`, `/docs/...`, `/dashboard`, `/dashboard/...`). */
export const PAGE_PATH = /^\/(?:docs|dashboard)(?:[/?]|$)/;

/**
 * What a JSON answer needs: no content sniffing, so a browser never renders an API answer as a page.
 * The rest of helmet's set (CSP, framing, referrer, cross-origin policies) governs documents a
 * browser renders and runs, which JSON is not.
 */
export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'X-Content-Type-Options': 'nosniff',
});

/**
 * The headers helmet sets with `options`, computed once: its middleware run against a response that
 * only records them. They depend on nothing of the request, so every page answer can get the same
 * set without building helmet's middleware again for each request.
 */
export function helmetHeaders(options: HelmetOptions): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader(name: string) {
      delete headers[name];
    },
  };
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
  });
  return Object.freeze(headers);
}

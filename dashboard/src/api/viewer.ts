import createClient, { type Middleware } from 'openapi-fetch';
import createQueryClient from 'openapi-react-query';
import { ApiError, type ErrorBody } from './client';
import type { paths } from './schema';

/**
 * The client of a share link's page, for people outside the account: it sends the publishable key
 * and the link's token it is given, never the dashboard's session (no stored token, no cookie).
 */
const refusals: Middleware = {
  async onResponse({ response }) {
    if (response.ok) return undefined;
    let body: Partial<ErrorBody> | undefined;
    try {
      const parsed: unknown = await response.clone().json();
      body = typeof parsed === 'object' && parsed !== null ? (parsed as Partial<ErrorBody>) : undefined;
    } catch {
      body = undefined;
    }
    throw new ApiError(response.status, body);
  },
  onError({ error }) {
    if (error instanceof DOMException && error.name === 'AbortError') return error;
    return new ApiError(0, undefined);
  },
};

const viewerApi = createClient<paths>({ baseUrl: window.location.origin, credentials: 'omit' });
viewerApi.use(refusals);

/** TanStack Query hooks over the viewer client. */
export const $viewer = createQueryClient(viewerApi);

/** What a share link's address carries after `#`: the link's token and the publishable key the page reads with. */
export interface ShareAddress {
  token: string;
  key: string;
}

/**
 * The page's address of a share link: `/dashboard/shared/<projectId>#token=...&key=...`. Both go in
 * the fragment, which browsers never send to a server, so neither lands in a log or a `Referer`.
 */
export function shareAddress(origin: string, projectId: string, address: ShareAddress): string {
  return `${origin}${import.meta.env.BASE_URL}shared/${projectId}#${shareFragment(address)}`;
}

export function shareFragment({ token, key }: ShareAddress): string {
  return new URLSearchParams({ token, key }).toString();
}

/** The token and key of a fragment, or undefined when either is missing. */
export function readShareFragment(hash: string): ShareAddress | undefined {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const token = params.get('token');
  const key = params.get('key');
  return token && key ? { token, key } : undefined;
}

import { MutationCache, QueryClient } from '@tanstack/react-query';
import { ApiError, onCredentialsChange } from './client';
import type { paths } from './schema';

/** A path of the document, or the start of some (`/v1/customers` covers `/v1/customers/{id}` too). */
export type PathPrefix = keyof paths | (string & {});

declare module '@tanstack/react-query' {
  interface Register {
    defaultError: ApiError;
    /** The API paths whose cached reads a change makes stale: each read whose path starts with one is fetched again. */
    mutationMeta: { invalidates?: readonly PathPrefix[] };
  }
}

/**
 * The cache of every read. Keys are openapi-react-query's `[method, path, init]`, so a change names the
 * paths it touches (`meta.invalidates`) and the reads of those paths, on screen, are fetched again
 * before the change's button stops spinning; the others are fetched when next shown.
 */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // Kept fresh by invalidation after a change, and read again when a page is opened anew.
      staleTime: 0,
      // A refused request (4xx) will be refused again; a lost connection is worth one more try.
      retry: (failures, error) => failures < 1 && error instanceof ApiError && error.status === 0,
      refetchOnWindowFocus: false,
    },
  },
  mutationCache: new MutationCache({
    onSuccess: async (_data, _variables, _context, mutation) => {
      const prefixes = mutation.meta?.invalidates ?? [];
      if (prefixes.length === 0) return;
      await queryClient.invalidateQueries({
        predicate: (query) =>
          typeof query.queryKey[1] === 'string' &&
          prefixes.some((prefix) => (query.queryKey[1] as string).startsWith(prefix)),
      });
    },
  }),
});

/** The reads that do not depend on the platform project (`X-Project-Id`): the header's. */
const ACCOUNT_LEVEL: readonly PathPrefix[] = ['/api/v1/me', '/api/v1/platform/projects'];

// Another project: nothing read for the previous one may show (another user or account clears the
// whole cache: the session provider does at every sign-in and sign-out).
onCredentialsChange(() => {
  queryClient.removeQueries({ predicate: (query) => !ACCOUNT_LEVEL.some((path) => query.queryKey[1] === path) });
});

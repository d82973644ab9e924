import createQueryClient from 'openapi-react-query';
import { clientFor, type ApiError, type Schemas } from './client';

/**
 * The search routes (content projects, customers, payments) as the dashboard calls them: one page
 * of `data` in Stripe's shape, and a 400 with `code: search_query_invalid` naming the position where
 * a query stops parsing.
 */
export interface SearchPage<T> {
  data: T[];
  has_more: boolean;
  next_page: string | null;
  total_count?: number;
}

export type SearchSort = 'relevance' | 'newest' | 'oldest';

export interface ProjectSearchQuery {
  q?: string;
  channelId?: string;
  projectTypeId?: Schemas['ProjectResponse']['projectTypeId'];
  status?: Schemas['ProjectResponse']['status'];
  access?: Schemas['ProjectResponse']['access'];
  sort?: SearchSort;
  limit?: number;
  page?: string;
}

export interface StripeSearchQuery {
  query: string;
  limit?: number;
  page?: string;
}

type Json<T> = { headers: { [name: string]: unknown }; content: { 'application/json': T } };
type Search<Query, Item> = {
  parameters: { query: Query; header?: never; path?: never; cookie?: never };
  requestBody?: never;
  responses: { 200: Json<SearchPage<Item>>; 400: Json<Schemas['ErrorResponseDto']> };
};
type Route<Query, Item> = {
  parameters: { query?: never; header?: never; path?: never; cookie?: never };
  get: Search<Query, Item>;
};

export interface SearchPaths {
  '/projects/search': Route<ProjectSearchQuery, Schemas['ProjectResponse']>;
  '/v1/customers/search': Route<StripeSearchQuery, Schemas['CustomerResponse']>;
  '/v1/payments/search': Route<StripeSearchQuery, Schemas['PaymentResponse']>;
}

export const searchApi = clientFor<SearchPaths>();
/** `$search.useQuery('get', '/v1/customers/search', { params: { query: { query } } })`. */
export const $search = createQueryClient(searchApi);

/** The code of a query that does not parse. */
export const SEARCH_QUERY_INVALID = 'search_query_invalid';

/**
 * A failed search or history request, as a sentence a person can act on: never the route, the
 * status or the code itself.
 */
export function searchFailureSentence(error: ApiError): string {
  if (error.code === SEARCH_QUERY_INVALID) return `This search could not be read. ${sentence(error.message)}`;
  if (error.code === 'mfa_required')
    return 'This account requires a second factor: set one up on the Security page, then sign in with it.';
  if (error.code === 'step_up_required') return 'Confirm it is you (your second factor or password), then try again.';
  if (error.status === 0) return 'The service could not be reached. Check your connection and try again.';
  if (error.status === 400 && error.errors?.length)
    return `Some of the search is not valid: ${error.errors
      .flatMap((entry) => entry.messages)
      .map(sentence)
      .join(' ')}`;
  if (error.status === 400) return 'This search could not be read. Check the words and filters, then try again.';
  if (error.status === 403) return 'Your role does not let you search here. Ask an admin of the account.';
  if (error.status === 404) return 'That search is no longer in your history.';
  if (error.status === 429) return 'Too many searches at once. Wait a moment and try again.';
  return 'The search did not go through. Try again in a moment.';
}

/** A message as a sentence: a capital first, a full stop last, and no route (a word starting with `/`) in it. */
function sentence(message: string): string {
  const words = message.replace(/\s\/[\w/{}:.-]+/g, '').trim();
  const capital = words.charAt(0).toUpperCase() + words.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

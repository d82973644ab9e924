import { BadRequestException, Inject, Injectable } from '@nestjs/common';
import { CustomersService } from '../customers/customers.service';
import type { CustomerResponse } from '../customers/dto/customer.response';
import type { PaymentResponse } from '../payments/dto/payment.response';
import { PaymentsService } from '../payments/payments.service';
import type { ProjectResponse } from '../projects/dto/project.response';
import { ProjectsService } from '../projects/projects.service';
import { SearchHistoryService, type SearchToRecord } from '../search-history/search-history.service';
import type { ViewerProjectResponse } from '../sharing/dto/viewer-project.response';
import { ViewerService, type ViewerCredentials } from '../sharing/viewer.service';
import type { TenantScope } from '../tenancy/tenant-scope';
import type { SearchPageQuery } from './dto/search-page.query';
import type { SearchProjectsQuery, ViewerSearchQuery } from './dto/search-projects.query';
import { SEARCH_INDEX, type ProjectSearch, type SearchIndex } from './search-index';
import { parseStripeQuery, QueryFieldError, QuerySyntaxError, type FieldKind } from './stripe-query';

/** Stripe's shape of a search answer. */
export interface SearchPage<T> {
  data: T[];
  has_more: boolean;
  next_page: string | null;
  total_count: number;
}

/**
 * Who searches, as the controller knows it: a signed-in user (their id) or an API key. A search
 * history records a user's searches only, from here.
 */
export interface Searcher {
  scope: TenantScope;
  userId: string | null;
  /** False for a search another site's page opened (`Sec-Fetch-Site`): answered, not remembered. */
  remembers: boolean;
}

export const SEARCH_QUERY_INVALID = 'search_query_invalid';

const CUSTOMER_FIELDS: Record<string, FieldKind> = {
  email: 'text',
  name: 'text',
  phone: 'text',
  created: 'number',
  metadata: 'metadata',
};
const PAYMENT_FIELDS: Record<string, FieldKind> = {
  amount: 'minorUnits',
  currency: 'text',
  customer: 'text',
  status: 'text',
  created: 'number',
  metadata: 'metadata',
};

/** Offsets past this are refused: deep pages of a search are better narrowed by its words or filters. */
const MAX_OFFSET = 10_000;

/**
 * The four searches. The index answers which records of the caller's platform project match and in
 * what order; the owning modules answer the records themselves, through their ports and mappers, so
 * a result is as fresh as a GET (a record gone since the index saw it is left out) and has the shape
 * of the list routes' items. For viewers, the sharing module's rules decide which matches are shown
 * and counted, over every match, so a hidden project is neither in `data` nor in `total_count`.
 */
@Injectable()
export class SearchService {
  constructor(
    @Inject(SEARCH_INDEX) private readonly index: SearchIndex,
    private readonly projects: ProjectsService,
    private readonly customers: CustomersService,
    private readonly payments: PaymentsService,
    private readonly viewer: ViewerService,
    private readonly history: SearchHistoryService,
  ) {}

  /**
   * A user's search that answered goes to the top of their history; an API key's is not recorded,
   * nor is a further page of a search already recorded with its first, nor one another site opened.
   */
  private async remember(searcher: Searcher, query: SearchPageQuery, entry: SearchToRecord): Promise<void> {
    if (searcher.userId && searcher.remembers && query.page === undefined)
      await this.history.record({ userId: searcher.userId, accountId: searcher.scope.accountId }, entry);
  }

  async searchProjects(searcher: Searcher, query: SearchProjectsQuery): Promise<SearchPage<ProjectResponse>> {
    const offset = pageOffset(query);
    const hits = this.index.searchProjects(searcher.scope.projectId, {
      ...projectSearch(query),
      status: query.status,
      access: query.access,
      offset,
      limit: query.limit,
    });
    const found = await this.projects.findManyByIds(searcher.scope, hits.ids);
    const filters: Record<string, string> = {};
    for (const name of ['channelId', 'projectTypeId', 'status', 'access', 'parentId', 'sort'] as const)
      if (query[name]) filters[name] = String(query[name]);
    if (query.createdAfter) filters.createdAfter = query.createdAfter.toISOString();
    if (query.createdBefore) filters.createdBefore = query.createdBefore.toISOString();
    await this.remember(searcher, query, { surface: 'projects', query: query.q ?? '', filters });
    return page(
      inOrder(hits.ids, found, (project) => project._id),
      offset,
      query.limit,
      hits.total,
    );
  }

  /** Every published match is judged by the viewer rules before any is counted or paged. */
  async searchAsViewer(
    scope: TenantScope,
    credentials: ViewerCredentials,
    query: ViewerSearchQuery,
  ): Promise<SearchPage<ViewerProjectResponse>> {
    const offset = pageOffset(query);
    const hits = this.index.searchProjects(scope.projectId, {
      ...projectSearch(query),
      status: 'published',
      offset: 0,
      limit: null,
    });
    const visible = await this.viewer.visibleAmong(scope, hits.ids, credentials);
    return page(visible.slice(offset, offset + query.limit), offset, query.limit, visible.length);
  }

  async searchCustomers(
    searcher: Searcher,
    query: SearchPageQuery & { query: string },
  ): Promise<SearchPage<CustomerResponse>> {
    const offset = pageOffset(query);
    const hits = this.index.searchRecords(searcher.scope.projectId, {
      kind: 'customer',
      query: parsed(query.query, CUSTOMER_FIELDS),
      offset,
      limit: query.limit,
    });
    const found = await this.customers.findManyByIds(searcher.scope, hits.ids);
    await this.remember(searcher, query, { surface: 'customers', query: query.query, filters: {} });
    return page(
      inOrder(hits.ids, found, (customer) => customer.id),
      offset,
      query.limit,
      hits.total,
    );
  }

  async searchPayments(
    searcher: Searcher,
    query: SearchPageQuery & { query: string },
  ): Promise<SearchPage<PaymentResponse>> {
    const offset = pageOffset(query);
    const hits = this.index.searchRecords(searcher.scope.projectId, {
      kind: 'payment',
      query: parsed(query.query, PAYMENT_FIELDS),
      offset,
      limit: query.limit,
    });
    const found = await this.payments.findManyByIds(searcher.scope, hits.ids);
    await this.remember(searcher, query, { surface: 'payments', query: query.query, filters: {} });
    return page(
      inOrder(hits.ids, found, (payment) => payment.id),
      offset,
      query.limit,
      hits.total,
    );
  }
}

function projectSearch(query: ViewerSearchQuery): Omit<ProjectSearch, 'offset' | 'limit'> {
  const seconds = (date?: Date) => (date ? Math.floor(date.getTime() / 1000) : undefined);
  return {
    text: query.q?.trim() || undefined,
    channelId: query.channelId?.toLowerCase(),
    parentId: query.parentId?.toLowerCase(),
    type: query.projectTypeId,
    createdAfter: seconds(query.createdAfter),
    createdBefore: seconds(query.createdBefore),
    sort: query.sort,
  };
}

/** A query of Stripe's language, or a 400 that names where it stops parsing or the field it cannot take. */
function parsed(query: string, fields: Record<string, FieldKind>) {
  try {
    return parseStripeQuery(query, fields);
  } catch (error) {
    if (error instanceof QuerySyntaxError || error instanceof QueryFieldError) {
      throw new BadRequestException({ message: error.message, code: SEARCH_QUERY_INVALID });
    }
    throw error;
  }
}

/** `page` is where the page starts among the results: callers pass back `next_page`. */
function pageOffset(query: SearchPageQuery): number {
  // The query's pattern admits only offsets from 0 to MAX_OFFSET (SEARCH_PAGE_PATTERN).
  return query.page === undefined ? 0 : Number(query.page);
}

function page<T>(data: T[], offset: number, limit: number, total: number): SearchPage<T> {
  const next = offset + limit;
  const hasMore = next < total && next <= MAX_OFFSET;
  return {
    data,
    has_more: hasMore,
    next_page: hasMore ? String(next) : null,
    total_count: total,
  };
}

/** The records in the index's order; one gone since the index saw it is left out. */
function inOrder<T>(ids: readonly string[], records: readonly T[], idOf: (record: T) => string): T[] {
  const byId = new Map(records.map((record) => [idOf(record), record]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

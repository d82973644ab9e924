import { applyDecorators, Controller, createParamDecorator, type ExecutionContext, Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ErrorResponseDto } from '../common/dto/error-response.dto';
import { ApiErrorResponses } from '../common/swagger/api-error-responses.decorator';
import { Credentials, ViewerCredentialsDoc } from '../sharing/viewer.controller';
import type { ViewerCredentials } from '../sharing/viewer.service';
import type { RequestContext } from '../tenancy/principal';
import { Access } from '../access/policy/access-policy';
import { Tenant } from '../tenancy/tenancy.decorators';
import type { TenantScope } from '../tenancy/tenant-scope';
import { SearchProjectsQuery, ViewerSearchQuery } from './dto/search-projects.query';
import {
  CustomerSearchResponse,
  PaymentSearchResponse,
  ProjectSearchResponse,
  ViewerSearchResponse,
} from './dto/search-results.response';
import { SearchCustomersQuery, SearchPaymentsQuery } from './dto/stripe-search.query';
import { SEARCH_QUERY_INVALID, SearchService, type Searcher } from './search.service';

const LAG =
  'Results come from a search index that follows the changes: a write shows in them after a short delay (about a second, a few at most), ' +
  "as Stripe's search results do. ";

/**
 * The caller's platform project and who they are (a user's id; null for an API key), as the guards
 * found them, and whether the search is theirs to remember: a link on another site that opens a
 * search sends the session cookie (SameSite=Lax lets top-level GETs through), and must not write
 * the victim's history.
 */
const SearcherOf = createParamDecorator((_data: unknown, execution: ExecutionContext): Searcher => {
  const request = execution.switchToHttp().getRequest<RequestContext & { headers: Record<string, unknown> }>();
  const { tenant, principal } = request;
  const site = request.headers['sec-fetch-site'];
  return {
    scope: tenant!,
    userId: principal?.kind === 'user' ? principal.userId : null,
    remembers: site !== 'cross-site' && site !== 'same-site',
  };
});

/** The 400 of a query in Stripe's language that does not parse. */
function ApiQueryRefusal() {
  return ApiBadRequestResponse({
    description:
      'The query does not parse (the message names the position, from 0, and what was expected there), names an unknown field, or a parameter is invalid',
    type: ErrorResponseDto,
    example: {
      statusCode: 400,
      error: 'Bad Request',
      message: 'The query does not parse at position 6: expected a quoted value',
      code: SEARCH_QUERY_INVALID,
    },
  });
}

const SEARCH_PAGING =
  "Paged as Stripe pages a search: `limit` (default 10, at most 100), and the answer's `next_page` sent back as `page`. ";

@ApiTags('projects')
@Controller()
export class ProjectSearchController {
  constructor(private readonly search: SearchService) {}

  @Access({
    credentials: ['userToken', 'session', 'secretKey'],
    scope: 'project',
    api: 'projects',
    assurance: 'accountMfa',
  })
  @Get('projects/search')
  @ApiOperation({
    summary: 'Search content projects',
    description:
      "The platform project's content projects whose primaryTitle, description or topicIds hold the words of `q` (each as itself or a prefix, " +
      'and within one typo for words of 5 letters or more), narrowed by the filters; every project when `q` is empty. Ranked by relevance ' +
      '(the title weighs most), or `sort=newest|oldest`. ' +
      SEARCH_PAGING +
      LAG,
  })
  @ApiOkResponse({ type: ProjectSearchResponse, description: 'One page of matching projects' })
  @ApiErrorResponses(400, 401, 500, 503)
  searchProjects(
    @SearcherOf() searcher: Searcher,
    @Query() query: SearchProjectsQuery,
  ): Promise<ProjectSearchResponse> {
    return this.search.searchProjects(searcher, query);
  }
}

@ApiTags('viewer')
@Controller('viewer')
export class ViewerSearchController {
  constructor(private readonly search: SearchService) {}

  @Access({ credentials: ['publishableKey', 'shareToken', 'viewerToken'], scope: 'viewer', api: 'projects' })
  @Get('search')
  @ApiOperation({
    summary: 'Search the content as a viewer',
    description:
      'The words and filters of `GET /projects/search`, over the projects this viewer may see by the rules of `GET /viewer/projects/{projectId}`: ' +
      'published with every ancestor, and public, or opened by the share link in `X-Share-Token` or a grant of the user in `X-Viewer-Token`. ' +
      'A project the viewer may not see is neither listed nor counted. ' +
      SEARCH_PAGING +
      LAG,
  })
  @ApiOkResponse({ type: ViewerSearchResponse, description: 'One page of matching projects the viewer may see' })
  @ViewerCredentialsDoc()
  @ApiErrorResponses(400, 429, 500, 503)
  searchAsViewer(
    @Tenant() scope: TenantScope,
    @Credentials() credentials: ViewerCredentials,
    @Query() query: ViewerSearchQuery,
  ): Promise<ViewerSearchResponse> {
    return this.search.searchAsViewer(scope, credentials, query);
  }
}

/** What the two searches in Stripe's query language share in the document. */
function StripeSearchDoc(
  resource: string,
  type: typeof CustomerSearchResponse | typeof PaymentSearchResponse,
  examples: string,
) {
  return applyDecorators(
    ApiOperation({
      summary: `Search ${resource}`,
      description:
        `The ${resource} matching \`query\`, in Stripe's search query language (subset), newest first. Examples: ${examples}. ` +
        SEARCH_PAGING +
        LAG,
    }),
    ApiOkResponse({ type, description: `One page of matching ${resource}` }),
    ApiQueryRefusal(),
    ApiErrorResponses(401, 500, 503),
  );
}

@ApiTags('customers')
@Controller('v1/customers')
export class CustomerSearchController {
  constructor(private readonly search: SearchService) {}

  @Access({
    credentials: ['userToken', 'session', 'secretKey'],
    scope: 'project',
    api: 'customers',
    assurance: 'accountMfa',
  })
  @Get('search')
  @StripeSearchDoc(
    'customers',
    CustomerSearchResponse,
    "`email:'jenny.rosen@example.com'`, `name~'jen'`, `created>1690000000`, `metadata['order_id']:'6735'`",
  )
  searchCustomers(
    @SearcherOf() searcher: Searcher,
    @Query() query: SearchCustomersQuery,
  ): Promise<CustomerSearchResponse> {
    return this.search.searchCustomers(searcher, query);
  }
}

@ApiTags('payments')
@Controller('v1/payments')
export class PaymentSearchController {
  constructor(private readonly search: SearchService) {}

  @Access({
    credentials: ['userToken', 'session', 'secretKey'],
    scope: 'project',
    api: 'payments',
    assurance: 'accountMfa',
  })
  @Get('search')
  @StripeSearchDoc(
    'payments',
    PaymentSearchResponse,
    "`amount>1000 AND currency:'usd'`, `status:'succeeded'`, `-status:'failed'`, `customer:'6650c0ffee0000000000f001'`",
  )
  searchPayments(
    @SearcherOf() searcher: Searcher,
    @Query() query: SearchPaymentsQuery,
  ): Promise<PaymentSearchResponse> {
    return this.search.searchPayments(searcher, query);
  }
}

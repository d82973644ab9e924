import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Access, type AccessPolicy } from '../access/policy/access-policy';
import { Audit } from '../audit/audit-context.decorator';
import type { AuditContext } from '../audit/audit-draft';
import { MessageResponseDto } from '../common/dto/error-response.dto';
import { ParseObjectIdPipe } from '../common/pipes/parse-object-id.pipe';
import { ApiErrorResponses } from '../common/swagger/api-error-responses.decorator';
import type { Principal } from '../tenancy/principal';
import { Caller, UserId } from '../tenancy/tenancy.decorators';
import { ListSearchHistoryQuery, UpdateSearchHistorySettingsDto } from './dto/search-history.dto';
import {
  SearchHistoryClearedResponse,
  SearchHistoryListResponse,
  SearchHistorySettingsEnvelope,
} from './dto/search-history.response';
import { toSearchHistoryEntryView } from './search-history.mapper';
import { historyOwnerOf, SearchHistoryService } from './search-history.service';

/** The caller's own searches in their token's account: read, removed, cleared, paused. Nobody else's, whatever their role. */
/** The access policy the routes below share; a route that asks more adds it beside its handler. */
const SEARCH_HISTORY_ACCESS: AccessPolicy = {
  credentials: ['userToken', 'session'],
  scope: 'account',
  assurance: 'accountMfa',
};

@ApiTags('search history')
@Controller('api/v1/me/search-history')
export class SearchHistoryController {
  constructor(private readonly history: SearchHistoryService) {}

  @Access(SEARCH_HISTORY_ACCESS)
  @Get()
  @ApiOperation({
    summary: 'Your recent searches',
    description:
      "The dashboard searches you ran in your token's account (content, customers, payments), newest first: at most 100, each kept 90 days " +
      'after it was last run; a search run again moves to the top. With `settings.paused`, whether recording is paused. Yours alone: ' +
      'no other member, admin or owner reads it, and it is in neither the events nor the audit log.',
  })
  @ApiOkResponse({ type: SearchHistoryListResponse })
  @ApiErrorResponses(400, 401, 403, 500, 503)
  async listSearchHistory(
    @UserId() userId: string,
    @Caller() caller: Principal,
    @Query() query: ListSearchHistoryQuery,
  ): Promise<SearchHistoryListResponse> {
    const { entries, paused } = await this.history.list(historyOwnerOf(userId, caller), query);
    return { data: entries.map(toSearchHistoryEntryView), settings: { paused } };
  }

  @Access(SEARCH_HISTORY_ACCESS)
  @Delete(':id')
  @ApiOperation({
    summary: 'Remove one of your recent searches',
    description: "Another user's search, or an unknown id: 404.",
  })
  @ApiOkResponse({ type: MessageResponseDto, example: { message: 'Search removed' } })
  @ApiErrorResponses(400, 401, 403, 404, 500, 503)
  async removeSearchHistoryEntry(
    @UserId() userId: string,
    @Caller() caller: Principal,
    @Param('id', ParseObjectIdPipe) id: string,
  ): Promise<MessageResponseDto> {
    await this.history.remove(historyOwnerOf(userId, caller), id);
    return { message: 'Search removed' };
  }

  @Access(SEARCH_HISTORY_ACCESS)
  @Delete()
  @ApiOperation({
    summary: 'Clear your recent searches',
    description: "Removes every search of yours in the token's account; recording goes on unless paused.",
  })
  @ApiOkResponse({ type: SearchHistoryClearedResponse })
  @ApiErrorResponses(401, 403, 500, 503)
  async clearSearchHistory(
    @UserId() userId: string,
    @Caller() caller: Principal,
  ): Promise<SearchHistoryClearedResponse> {
    return { message: 'Search history cleared', deleted: await this.history.clear(historyOwnerOf(userId, caller)) };
  }

  @Access(SEARCH_HISTORY_ACCESS)
  @Put('settings')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Pause or resume your search history',
    description:
      'While paused, searches are not recorded; what is recorded stays until removed or expired. Turning it on or off is in the ' +
      "account's audit log (`search_history.paused`, `search_history.resumed`); setting what is already set logs nothing.",
  })
  @ApiOkResponse({ type: SearchHistorySettingsEnvelope })
  @ApiErrorResponses(400, 401, 403, 413, 415, 500, 503)
  async updateSearchHistorySettings(
    @UserId() userId: string,
    @Caller() caller: Principal,
    @Audit() audit: AuditContext,
    @Body() dto: UpdateSearchHistorySettingsDto,
  ): Promise<SearchHistorySettingsEnvelope> {
    return { data: { paused: await this.history.setPaused(audit, historyOwnerOf(userId, caller), dto.paused) } };
  }
}

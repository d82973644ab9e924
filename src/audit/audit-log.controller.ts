import { Access, SIGNED_IN_TO_ACCOUNT } from '../access/policy/access-policy';
import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Readable } from 'node:stream';
import { ParseObjectIdPipe } from '../common/pipes/parse-object-id.pipe';
import { ApiErrorResponses } from '../common/swagger/api-error-responses.decorator';
import { UserId } from '../tenancy/tenancy.decorators';
import { AuditLogService } from './audit-log.service';
import { AuditLogResponse, AuditVerifyResponse } from './dto/audit-entry.response';
import { AuditExportQuery, AuditLogQuery } from './dto/audit-log.query';

const ADMINS = 'Admins and the owner of the account; API keys never (403). Another account is 404.';

@ApiTags('audit log')
@Controller('api/v1/accounts/:accountId/audit-log')
export class AuditLogController {
  constructor(private readonly log: AuditLogService) {}

  @Access(SIGNED_IN_TO_ACCOUNT)
  @Get()
  @ApiOperation({
    summary: "List an account's audit log",
    description: `Newest first, \`limit\` per page (max 100), \`startingAfter\` the last entry id seen; filters \`action\`, \`actorId\`, \`projectId\`, \`from\`, \`to\`. ${ADMINS}`,
  })
  @ApiOkResponse({ type: AuditLogResponse })
  @ApiErrorResponses(400, 401, 403, 404, 500, 503)
  listAuditLogEntries(
    @UserId() userId: string,
    @Param('accountId', ParseObjectIdPipe) accountId: string,
    @Query() query: AuditLogQuery,
  ): Promise<AuditLogResponse> {
    return this.log.page(accountId, userId, query, query.limit, query.startingAfter);
  }

  @Access(SIGNED_IN_TO_ACCOUNT)
  @Get('export')
  @ApiOperation({
    summary: "Export an account's audit log",
    description: `Oldest first, streamed as JSON lines or CSV, with the list's filters. ${ADMINS}`,
  })
  @ApiOkResponse({
    description: 'One entry a line (CSV: a header row first)',
    content: { 'application/x-ndjson': { schema: { type: 'string' } }, 'text/csv': { schema: { type: 'string' } } },
  })
  @ApiErrorResponses(400, 401, 403, 404, 500, 503)
  async exportAuditLog(
    @UserId() userId: string,
    @Param('accountId', ParseObjectIdPipe) accountId: string,
    @Query() query: AuditExportQuery,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const lines = this.log.export(accountId, userId, query, query.format);
    // The access check runs before the first byte: a refusal is an ordinary error answer.
    const first = await lines.next();
    reply.header(
      'content-type',
      query.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
    );
    reply.header('content-disposition', `attachment; filename="audit-log-${accountId}.${query.format}"`);
    await reply.send(
      Readable.from(
        (async function* () {
          if (!first.done) yield first.value;
          yield* lines;
        })(),
      ),
    );
  }

  @Access(SIGNED_IN_TO_ACCOUNT)
  @Get('verify')
  @ApiOperation({
    summary: "Verify an account's audit log",
    description: `Walks the chain: numbers without gaps, each hash recomputed. ${ADMINS}`,
  })
  @ApiOkResponse({ type: AuditVerifyResponse })
  @ApiErrorResponses(400, 401, 403, 404, 500, 503)
  verifyAuditLog(
    @UserId() userId: string,
    @Param('accountId', ParseObjectIdPipe) accountId: string,
  ): Promise<AuditVerifyResponse> {
    return this.log.verify(accountId, userId);
  }
}

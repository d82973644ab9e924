import { Access, SIGNED_IN_TO_ACCOUNT, SIGNED_IN_USER } from '../access/policy/access-policy';
import { Audit } from '../audit/audit-context.decorator';
import type { AuditContext } from '../audit/audit-draft';
import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { MessageResponseDto } from '../common/dto/error-response.dto';
import { ParseObjectIdPipe } from '../common/pipes/parse-object-id.pipe';
import { ApiErrorResponses } from '../common/swagger/api-error-responses.decorator';
import { UserId } from '../tenancy/tenancy.decorators';
import { AccountsService } from './accounts.service';
import { ChangeRoleDto, CreateAccountDto, TransferOwnershipDto, UpdateAccountDto } from './dto/account.dto';
import { AccountEnvelope, AccountListResponse, MemberEnvelope, MemberListResponse } from './dto/account.response';
import { Idempotent } from '../idempotency/idempotent.decorator';

const ACCOUNT_ID = 'accountId';

@ApiTags('accounts')
@Controller('api/v1/accounts')
export class AccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @Access(SIGNED_IN_USER)
  @Get()
  @ApiOperation({
    summary: "List the caller's accounts",
    description: 'Every account the caller is a member of, with their role in it.',
  })
  @ApiOkResponse({ type: AccountListResponse })
  @ApiErrorResponses(401, 403, 500, 503)
  async listAccounts(@UserId() userId: string): Promise<AccountListResponse> {
    return { data: await this.accounts.listForUser(userId) };
  }

  @Access(SIGNED_IN_USER)
  @Post()
  @Idempotent()
  @ApiOperation({
    summary: 'Create an account',
    description:
      'The caller becomes its owner (role admin); its default platform project is created with every API enabled.',
  })
  @ApiCreatedResponse({ type: AccountEnvelope })
  @ApiErrorResponses(400, 401, 403, 413, 415, 500, 503)
  async createAccount(
    @Audit() audit: AuditContext,
    @UserId() userId: string,
    @Body() dto: CreateAccountDto,
  ): Promise<AccountEnvelope> {
    return { data: await this.accounts.create(audit, userId, dto.name, dto.type, 'admin') };
  }

  @Access(SIGNED_IN_TO_ACCOUNT)
  @Get(':accountId')
  @ApiOperation({ summary: 'Get an account', description: 'Members only: any other account is 404.' })
  @ApiOkResponse({ type: AccountEnvelope })
  @ApiErrorResponses(400, 401, 403, 404, 500, 503)
  async getAccount(
    @UserId() userId: string,
    @Param(ACCOUNT_ID, ParseObjectIdPipe) accountId: string,
  ): Promise<AccountEnvelope> {
    return { data: await this.accounts.get(accountId, userId) };
  }

  // Turning the requirement off lowers every member's bar: a step-up action; renaming is not.
  @Access({ ...SIGNED_IN_TO_ACCOUNT, stepUp: (body) => body.requireMfa === false })
  @Patch(':accountId')
  @ApiOperation({
    summary: 'Rename an account or change its type',
    description: 'Admins and the owner. `requireMfa: false` is a step-up action (403 `step_up_required`).',
  })
  @ApiOkResponse({ type: AccountEnvelope })
  @ApiErrorResponses(400, 401, 403, 404, 409, 413, 415, 500, 503)
  async updateAccount(
    @Audit() audit: AuditContext,
    @UserId() userId: string,
    @Param(ACCOUNT_ID, ParseObjectIdPipe) accountId: string,
    @Body() dto: UpdateAccountDto,
  ): Promise<AccountEnvelope> {
    return { data: await this.accounts.update(audit, accountId, userId, dto) };
  }

  @Access({ ...SIGNED_IN_TO_ACCOUNT, stepUp: true })
  @Post(':accountId/ownership')
  @Idempotent()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Transfer ownership',
    description:
      'A step-up action (403 `step_up_required`). The owner only. The new owner must be a member and becomes admin; the former owner keeps their membership and role. ' +
      'Concurrent transfers run one at a time: the caller must still be the owner when its turn comes (403 otherwise); ' +
      'a transfer that cannot get its turn within seconds is 409.',
  })
  @ApiOkResponse({ type: AccountEnvelope })
  @ApiErrorResponses(400, 401, 403, 404, 409, 413, 415, 500, 503)
  async transferOwnership(
    @Audit() audit: AuditContext,
    @UserId() userId: string,
    @Param(ACCOUNT_ID, ParseObjectIdPipe) accountId: string,
    @Body() dto: TransferOwnershipDto,
  ): Promise<AccountEnvelope> {
    return { data: await this.accounts.transferOwnership(audit, accountId, userId, dto.userId.toLowerCase()) };
  }

  @Access(SIGNED_IN_TO_ACCOUNT)
  @Get(':accountId/members')
  @ApiOperation({ summary: 'List members', description: 'Any member of the account.' })
  @ApiOkResponse({ type: MemberListResponse })
  @ApiErrorResponses(400, 401, 403, 404, 500, 503)
  async listMembers(
    @UserId() userId: string,
    @Param(ACCOUNT_ID, ParseObjectIdPipe) accountId: string,
  ): Promise<MemberListResponse> {
    return { data: await this.accounts.listMembers(accountId, userId) };
  }

  // A step-up action, as inviting is: a member made admin or manager makes keys or refunds from a fresh sign-in of their own.
  @Access({ ...SIGNED_IN_TO_ACCOUNT, stepUp: true })
  @Patch(':accountId/members/:userId')
  @ApiOperation({
    summary: "Change a member's role",
    description:
      "A step-up action (403 `step_up_required`). Admins and the owner. The owner's role cannot be changed (403). Runs one at a time with transfers and removals (409 when busy).",
  })
  @ApiOkResponse({ type: MemberEnvelope })
  @ApiErrorResponses(400, 401, 403, 404, 409, 413, 415, 500, 503)
  async changeMemberRole(
    @Audit() audit: AuditContext,
    @UserId() callerId: string,
    @Param(ACCOUNT_ID, ParseObjectIdPipe) accountId: string,
    @Param('userId', ParseObjectIdPipe) memberId: string,
    @Body() dto: ChangeRoleDto,
  ): Promise<MemberEnvelope> {
    return { data: await this.accounts.changeRole(audit, accountId, callerId, memberId, dto.role) };
  }

  @Access({ ...SIGNED_IN_TO_ACCOUNT, stepUp: true })
  @Delete(':accountId/members/:userId')
  @ApiOperation({
    summary: 'Remove a member, or leave',
    description:
      'Admins remove anyone but the owner; any member may remove themself (leave). The owner: 409, transfer ownership first.',
  })
  @ApiOkResponse({ type: MessageResponseDto, example: { message: 'Member removed' } })
  @ApiErrorResponses(400, 401, 403, 404, 409, 500, 503)
  async removeMember(
    @Audit() audit: AuditContext,
    @UserId() callerId: string,
    @Param(ACCOUNT_ID, ParseObjectIdPipe) accountId: string,
    @Param('userId', ParseObjectIdPipe) memberId: string,
  ): Promise<MessageResponseDto> {
    await this.accounts.removeMember(audit, accountId, callerId, memberId);
    return { message: 'Member removed' };
  }
}

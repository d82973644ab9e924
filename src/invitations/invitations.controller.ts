import { Access, SIGNED_IN_TO_ACCOUNT, SIGNED_IN_USER } from '../access/policy/access-policy';
import { Audit } from '../audit/audit-context.decorator';
import type { AuditContext } from '../audit/audit-draft';
import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccountEnvelope } from '../accounts/dto/account.response';
import { MessageResponseDto } from '../common/dto/error-response.dto';
import { ParseObjectIdPipe } from '../common/pipes/parse-object-id.pipe';
import { ApiErrorResponses } from '../common/swagger/api-error-responses.decorator';
import { UserId } from '../tenancy/tenancy.decorators';
import {
  AcceptInvitationDto,
  CreatedInvitationEnvelope,
  CreateInvitationDto,
  InvitationListResponse,
} from './dto/invitation.dto';
import { InvitationsService } from './invitations.service';
import { Idempotent } from '../idempotency/idempotent.decorator';

@ApiTags('accounts')
@Controller('api/v1')
export class InvitationsController {
  constructor(private readonly invitations: InvitationsService) {}

  // A step-up action: an invitation brings in a person who signs in fresh, with keys and refunds
  // of their own, so a stale credential would step up through them.
  @Access({ ...SIGNED_IN_TO_ACCOUNT, stepUp: true, verifiedEmail: true })
  @Post('accounts/:accountId/invitations')
  @Idempotent()
  @ApiOperation({
    summary: 'Invite someone into the account',
    description:
      'A step-up action (403 `step_up_required`). Admins and the owner, with a verified email (403 with `code: email_unverified` otherwise). The invited email gets a mail ' +
      'with the link; the token is also shown once, in this answer, for scripts. Valid 7 days, single use, ' +
      'only for the invited email. Inviting a current member is 409; a pending invitation of the same email is replaced. ' +
      'An email is sent at most `MAIL_MAX_PER_EMAIL` mails within `MAIL_WINDOW_SECONDS` (resets and verifications included): 429 with Retry-After beyond.',
  })
  @ApiCreatedResponse({
    type: CreatedInvitationEnvelope,
    // The invited person signs up with the token: the link a generator cannot see, as the token is
    // no record's id and signup is public.
    links: {
      SignupWithInvitation: {
        operationId: 'signup',
        requestBody: {
          invitationToken: '$response.body#/data/token',
          email: '$response.body#/data/email',
          role: '$response.body#/data/role',
        },
      },
    },
  })
  @ApiErrorResponses(400, 401, 403, 404, 409, 413, 415, 429, 500, 503)
  async createInvitation(
    @Audit() audit: AuditContext,
    @UserId() userId: string,
    @Param('accountId', ParseObjectIdPipe) accountId: string,
    @Body() dto: CreateInvitationDto,
  ): Promise<CreatedInvitationEnvelope> {
    return { data: await this.invitations.create(audit, accountId, userId, dto) };
  }

  @Access(SIGNED_IN_TO_ACCOUNT)
  @Get('accounts/:accountId/invitations')
  @ApiOperation({
    summary: 'List pending invitations',
    description: 'Admins and the owner. Tokens are never shown again.',
  })
  @ApiOkResponse({ type: InvitationListResponse })
  @ApiErrorResponses(400, 401, 403, 404, 500, 503)
  async listInvitations(
    @UserId() userId: string,
    @Param('accountId', ParseObjectIdPipe) accountId: string,
  ): Promise<InvitationListResponse> {
    return { data: await this.invitations.listPending(accountId, userId) };
  }

  @Access(SIGNED_IN_TO_ACCOUNT)
  @Delete('accounts/:accountId/invitations/:invitationId')
  @ApiOperation({
    summary: 'Revoke an invitation',
    description: 'Admins and the owner. Only a pending invitation can be revoked.',
  })
  @ApiOkResponse({ type: MessageResponseDto, example: { message: 'Invitation revoked' } })
  @ApiErrorResponses(400, 401, 403, 404, 500, 503)
  async revokeInvitation(
    @Audit() audit: AuditContext,
    @UserId() userId: string,
    @Param('accountId', ParseObjectIdPipe) accountId: string,
    @Param('invitationId', ParseObjectIdPipe) invitationId: string,
  ): Promise<MessageResponseDto> {
    await this.invitations.revoke(audit, accountId, userId, invitationId);
    return { message: 'Invitation revoked' };
  }

  @Access(SIGNED_IN_USER)
  @Post('invitations/accept')
  @Idempotent()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Accept an invitation',
    description:
      "Joins the inviting account with the invitation's role. Only the invited email may accept (403 otherwise).",
  })
  @ApiOkResponse({ type: AccountEnvelope })
  @ApiErrorResponses(400, 401, 403, 409, 413, 415, 500, 503)
  async acceptInvitation(
    @Audit() audit: AuditContext,
    @UserId() userId: string,
    @Body() dto: AcceptInvitationDto,
  ): Promise<AccountEnvelope> {
    return { data: await this.invitations.accept(audit, dto.token, userId) };
  }
}

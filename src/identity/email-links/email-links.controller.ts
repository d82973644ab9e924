import { Access, SIGNED_IN_USER, type AccessPolicy } from '../../access/policy/access-policy';
import { Body, Controller, HttpCode, HttpStatus, Param, Post, Req } from '@nestjs/common';
import { Idempotent } from '../../idempotency/idempotent.decorator';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { auditOriginOf } from '../../audit/audit-context.decorator';
import { MessageResponseDto } from '../../common/dto/error-response.dto';
import { ApiErrorResponses } from '../../common/swagger/api-error-responses.decorator';
import { UserId } from '../../tenancy/tenancy.decorators';
import { RequestPasswordResetDto, ResetPasswordDto } from './dto/email-links.dto';
import { EmailLinksService } from './email-links.service';

// Named `code`, not `token`: the mailed link's one-time code, which OWASP's rule would read as a credential in the URL.
// No example: like a record's id, a code only means something when it was mailed to the caller.
const TOKEN_PARAM = { name: 'code', description: 'The one-time code of the mailed link (its `token` query parameter)' };

/** The access policy the routes below share; a route that asks more adds it beside its handler. */
const OPEN_TO_ANYONE: AccessPolicy = {
  credentials: ['anyone'],
  scope: 'none',
};

@ApiTags('auth')
@Controller('api/v1')
export class EmailLinksController {
  constructor(private readonly links: EmailLinksService) {}

  @Access(OPEN_TO_ANYONE)
  @Post('password-resets')
  @Idempotent()
  @HttpCode(HttpStatus.ACCEPTED)
  @ApiOperation({
    summary: 'Ask for a password reset link',
    description:
      'Always 202, whether the email belongs to a user or not. A user gets a mail with a link valid one hour, usable once. ' +
      'Mails are limited per email and per client address within a window (`MAIL_MAX_PER_EMAIL`, `MAIL_MAX_PER_CLIENT`): ' +
      'beyond, the answer is the same and no mail is sent.',
  })
  @ApiAcceptedResponse({
    type: MessageResponseDto,
    example: { message: 'If this email belongs to a user, a reset link is on its way' },
  })
  @ApiErrorResponses(400, 413, 415, 500, 503)
  async requestPasswordReset(
    @Body() dto: RequestPasswordResetDto,
    @Req() request: FastifyRequest,
  ): Promise<MessageResponseDto> {
    await this.links.requestPasswordReset(dto.email, request.ip);
    return { message: 'If this email belongs to a user, a reset link is on its way' };
  }

  @Access(OPEN_TO_ANYONE)
  @Post('password-resets/:code')
  @Idempotent()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Set a new password with a reset link',
    description:
      "The password follows signup's rules. The link works once and for one hour; other reset links of the user stop working. " +
      'Tokens issued before the reset no longer count, and every account the user belongs to records `password.reset`.',
  })
  @ApiParam(TOKEN_PARAM)
  @ApiOkResponse({ type: MessageResponseDto, example: { message: 'Password changed' } })
  @ApiErrorResponses(400, 413, 415, 500, 503)
  async resetPassword(
    @Param('code') token: string,
    @Body() dto: ResetPasswordDto,
    @Req() request: FastifyRequest,
  ): Promise<MessageResponseDto> {
    await this.links.resetPassword(token, dto.password, auditOriginOf(request));
    return { message: 'Password changed' };
  }

  @Access(OPEN_TO_ANYONE)
  @Post('email-verifications/:code')
  @Idempotent()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Verify an email address with the link mailed at signup',
    description: 'The link works once and for 24 hours.',
  })
  @ApiParam(TOKEN_PARAM)
  @ApiOkResponse({ type: MessageResponseDto, example: { message: 'Email verified' } })
  @ApiErrorResponses(400, 500, 503)
  async verifyEmail(@Param('code') token: string): Promise<MessageResponseDto> {
    await this.links.verifyEmail(token);
    return { message: 'Email verified' };
  }

  @Access(SIGNED_IN_USER)
  @Post('email-verifications')
  @Idempotent()
  @HttpCode(HttpStatus.ACCEPTED)
  @ApiOperation({
    summary: 'Mail the verification link again',
    description:
      "To the caller's email, a new link valid 24 hours. 409 when already verified; limited like password resets (429 beyond).",
  })
  @ApiAcceptedResponse({ type: MessageResponseDto, example: { message: 'A verification link is on its way' } })
  @ApiErrorResponses(400, 401, 403, 409, 429, 500, 503)
  async resendEmailVerification(@UserId() userId: string, @Req() request: FastifyRequest): Promise<MessageResponseDto> {
    await this.links.resendVerification(userId, request.ip);
    return { message: 'A verification link is on its way' };
  }
}

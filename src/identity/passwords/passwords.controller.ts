import { Access, SIGNED_IN_USER } from '../../access/policy/access-policy';
import { Body, Controller, HttpCode, HttpStatus, Put, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { auditOriginOf } from '../../audit/audit-context.decorator';
import { MessageResponseDto } from '../../common/dto/error-response.dto';
import { ApiErrorResponses } from '../../common/swagger/api-error-responses.decorator';
import type { SessionFacts } from '../../tenancy/principal';
import { OptionalSession, UserId } from '../../tenancy/tenancy.decorators';
import { UserSessionsRef } from '../users/users.ports';
import { ChangePasswordDto } from './dto/passwords.dto';
import { PasswordChanges } from './password-changes.service';

/** The caller's own password (a forgotten one is reset through a mailed link: src/identity/email-links). */
@ApiTags('sessions')
@Controller('api/v1')
export class PasswordsController {
  constructor(
    private readonly passwords: PasswordChanges,
    private readonly sessions: UserSessionsRef,
  ) {}

  @Access({ ...SIGNED_IN_USER, stepUp: true })
  @Put('me/password')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Change your password',
    description:
      'A step-up action (403 `step_up_required`). Needs the current password (wrong: 401; counted toward the login limits). Ends ' +
      'every other session and makes bearer tokens issued before it invalid (401); the session of this request continues under a new id.',
  })
  @ApiOkResponse({ type: MessageResponseDto, example: { message: 'Password changed' } })
  @ApiErrorResponses(400, 401, 403, 413, 415, 429, 500, 503)
  async changePassword(
    @UserId() userId: string,
    @OptionalSession() current: SessionFacts | null,
    @Body() dto: ChangePasswordDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<MessageResponseDto> {
    const replaced = await this.passwords.change(
      userId,
      current,
      dto.currentPassword,
      dto.password,
      auditOriginOf(request),
    );
    if (replaced) this.sessions.get().setCookie(request, reply, replaced);
    return { message: 'Password changed' };
  }
}

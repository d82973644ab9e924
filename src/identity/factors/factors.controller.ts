import { Access, SIGNED_IN_USER } from '../../access/policy/access-policy';
import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { auditOriginOf } from '../../audit/audit-context.decorator';
import { MessageResponseDto } from '../../common/dto/error-response.dto';
import { ApiErrorResponses } from '../../common/swagger/api-error-responses.decorator';
import { Idempotent } from '../../idempotency/idempotent.decorator';
import type { SessionFacts } from '../../tenancy/principal';
import { OptionalSession, UserId } from '../../tenancy/tenancy.decorators';
import { UserSessionsRef } from '../users/users.ports';
import { TotpCodeDto } from './dto/factors.dto';
import { RecoveryCodesResponse, SecondFactorsEnvelope, TotpEnrolmentResponse } from './dto/factors.response';
import { FactorChanges } from './factor-changes.service';
import { MfaService } from './mfa.service';

/** The caller's second factors: what they have, and TOTP turned on or off (passkeys: src/identity/passkeys). */
@ApiTags('sessions')
@Controller('api/v1')
export class FactorsController {
  constructor(
    private readonly mfa: MfaService,
    private readonly changes: FactorChanges,
    private readonly sessions: UserSessionsRef,
  ) {}

  @Access(SIGNED_IN_USER)
  @Get('me/mfa')
  @ApiOperation({
    summary: 'Your second factors',
    description:
      'Whether TOTP is on (and how many recovery codes are left), and how many passkeys you have. Either is a second factor.',
  })
  @ApiOkResponse({ type: SecondFactorsEnvelope })
  @ApiErrorResponses(401, 403, 500, 503)
  async getSecondFactors(@UserId() userId: string): Promise<SecondFactorsEnvelope> {
    return { data: await this.mfa.factors(userId) };
  }

  @Access({ ...SIGNED_IN_USER, stepUp: true })
  @Post('me/mfa/totp')
  @Idempotent()
  @ApiOperation({
    summary: 'Start enrolling an authenticator app (TOTP)',
    description:
      'A step-up action (403 `step_up_required`). A new secret and its otpauth:// URI (for a QR code); TOTP is on once a code from ' +
      'it is verified. Already on: 409.',
  })
  @ApiCreatedResponse({ type: TotpEnrolmentResponse })
  @ApiErrorResponses(400, 401, 403, 409, 500, 503)
  async enrollTotp(@UserId() userId: string): Promise<TotpEnrolmentResponse> {
    return this.mfa.begin(userId);
  }

  @Access({ ...SIGNED_IN_USER, stepUp: true })
  @Post('me/mfa/totp/verify')
  @Idempotent()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Turn TOTP on',
    description:
      'A step-up action (403 `step_up_required`). With a code of the enrolled secret; answers 10 single-use recovery codes, shown ' +
      "this once. Wrong codes count toward the user's code limit (429). No enrolment under way, or TOTP on already: 409. The user's " +
      'other sessions and tokens then count as password-only until they prove a factor; the session of this request, which has ' +
      'just proven it, continues with assurance `mfa` under a new id.',
  })
  @ApiOkResponse({ type: RecoveryCodesResponse })
  @ApiErrorResponses(400, 401, 403, 409, 413, 415, 429, 500, 503)
  async verifyTotp(
    @UserId() userId: string,
    @OptionalSession() current: SessionFacts | null,
    @Body() dto: TotpCodeDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<RecoveryCodesResponse> {
    const { codes, replaced } = await this.changes.enableTotp(userId, current, dto.code, auditOriginOf(request));
    if (replaced) this.sessions.get().setCookie(request, reply, replaced);
    return { message: 'TOTP turned on', recoveryCodes: codes };
  }

  @Access({ ...SIGNED_IN_USER, stepUp: true })
  @Delete('me/mfa/totp')
  @ApiOperation({
    summary: 'Turn TOTP off',
    description:
      'A step-up action (403 `step_up_required`). Needs a fresh code of the app (one not used before). Not on: 409. Ends every other ' +
      'session and every bearer token issued before it; the session of this request continues under a new id.',
  })
  @ApiBody({ type: TotpCodeDto })
  @ApiOkResponse({ type: MessageResponseDto, example: { message: 'TOTP turned off' } })
  @ApiErrorResponses(400, 401, 403, 409, 413, 415, 429, 500, 503)
  async disableTotp(
    @UserId() userId: string,
    @OptionalSession() current: SessionFacts | null,
    @Body() dto: TotpCodeDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<MessageResponseDto> {
    const replaced = await this.changes.disableTotp(userId, current, dto.code, auditOriginOf(request));
    if (replaced) this.sessions.get().setCookie(request, reply, replaced);
    return { message: 'TOTP turned off' };
  }
}

import { Access, SIGNED_IN_USER } from '../../access/policy/access-policy';
import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Patch, Post, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { auditOriginOf } from '../../audit/audit-context.decorator';
import { MessageResponseDto } from '../../common/dto/error-response.dto';
import { ParseObjectIdPipe } from '../../common/pipes/parse-object-id.pipe';
import { ApiErrorResponses } from '../../common/swagger/api-error-responses.decorator';
import { Idempotent } from '../../idempotency/idempotent.decorator';
import { RegisterPasskeyDto, RenamePasskeyDto } from './dto/passkey.dto';
import { PasskeyEnvelope, PasskeyListResponse, PasskeyRegistrationOptions } from './dto/passkey.response';
import { toPasskeyView } from './passkeys.mapper';
import { PasskeysService } from './passkeys.service';
import type { SessionFacts } from '../../tenancy/principal';
import { OptionalSession, UserId } from '../../tenancy/tenancy.decorators';
import { UserSessionsRef } from '../users/users.ports';
import { PasskeyChanges } from './passkey-changes.service';

/** The caller's passkeys: register, list, rename, remove (signing in with one is under `sessions`). */
@ApiTags('sessions')
@Controller('api/v1/me/passkeys')
export class PasskeysController {
  constructor(
    private readonly passkeys: PasskeysService,
    private readonly changes: PasskeyChanges,
    private readonly sessions: UserSessionsRef,
  ) {}

  @Access({ ...SIGNED_IN_USER, stepUp: true })
  @Post('options')
  @Idempotent()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Start registering a passkey',
    description:
      'The options for `navigator.credentials.create()` (`@simplewebauthn/browser` `startRegistration({ optionsJSON })`): a new challenge ' +
      "for this user, single use and valid for a few minutes; the user's passkeys already registered excluded. Send the answer to " +
      '`POST /api/v1/me/passkeys`. A step-up action (403 `step_up_required`), as the registration. Counted with the sign-in options toward `PASSKEY_OPTIONS_MAX_PER_CLIENT` a client address: 429 beyond.',
  })
  @ApiOkResponse({ type: PasskeyRegistrationOptions })
  @ApiErrorResponses(400, 401, 403, 429, 500, 503)
  async createPasskeyRegistrationOptions(
    @UserId() userId: string,
    @Req() request: FastifyRequest,
  ): Promise<PasskeyRegistrationOptions> {
    return this.changes.registrationOptions(userId, auditOriginOf(request)) as Promise<PasskeyRegistrationOptions>;
  }

  @Access({ ...SIGNED_IN_USER, stepUp: true })
  @Post()
  @Idempotent()
  @ApiOperation({
    summary: 'Register a passkey',
    description:
      'A step-up action (403 `step_up_required`: a second factor proven within `STEP_UP_MINUTES` when the user has one, else the ' +
      "password). With a name and the authenticator's answer to `POST /api/v1/me/passkeys/options`: the passkey is a second factor from now on " +
      '(sign-in with it alone, step-up; a password sign-in then needs a factor too). An answer that does not verify (origin, signature, ' +
      'user not verified): 400; a challenge not issued for you, stale or answered already, or a passkey registered already: 409. ' +
      "Mails the user and records `passkey.added`. The user's other sessions and tokens then count as password-only until they prove a factor; " +
      'the session of this request, which has just proven it, continues with assurance `mfa` under a new id.',
  })
  @ApiCreatedResponse({ type: PasskeyEnvelope })
  @ApiErrorResponses(400, 401, 403, 409, 413, 415, 500, 503)
  async registerPasskey(
    @UserId() userId: string,
    @OptionalSession() current: SessionFacts | null,
    @Body() dto: RegisterPasskeyDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<PasskeyEnvelope> {
    const { passkey, replaced } = await this.changes.add(
      userId,
      current,
      dto.name,
      dto.credential as RegistrationResponseJSON,
      auditOriginOf(request),
    );
    if (replaced) this.sessions.get().setCookie(request, reply, replaced);
    return { data: toPasskeyView(passkey) };
  }

  @Access(SIGNED_IN_USER)
  @Get()
  @ApiOperation({ summary: 'List your passkeys', description: 'Oldest first: name, when registered, when last used.' })
  @ApiOkResponse({ type: PasskeyListResponse })
  @ApiErrorResponses(401, 403, 500, 503)
  async listPasskeys(@UserId() userId: string): Promise<PasskeyListResponse> {
    return { data: (await this.passkeys.list(userId)).map(toPasskeyView) };
  }

  @Access(SIGNED_IN_USER)
  @Patch(':id')
  @ApiOperation({ summary: 'Rename a passkey', description: "Another user's passkey, or an unknown id: 404." })
  @ApiOkResponse({ type: PasskeyEnvelope })
  @ApiErrorResponses(400, 401, 403, 404, 413, 415, 500, 503)
  async renamePasskey(
    @UserId() userId: string,
    @Param('id', ParseObjectIdPipe) id: string,
    @Body() dto: RenamePasskeyDto,
  ): Promise<PasskeyEnvelope> {
    return { data: toPasskeyView(await this.passkeys.rename(userId, id, dto.name)) };
  }

  @Access({ ...SIGNED_IN_USER, stepUp: true })
  @Delete(':id')
  @ApiOperation({
    summary: 'Remove a passkey',
    description:
      "A step-up action (403 `step_up_required`). It no longer signs in. Another user's passkey, or an unknown id: 404. Mails the user " +
      'and records `passkey.removed`. Ends every other session and every bearer token issued before it; the session of this request ' +
      'continues under a new id.',
  })
  @ApiOkResponse({ type: MessageResponseDto, example: { message: 'Passkey removed' } })
  @ApiErrorResponses(400, 401, 403, 404, 500, 503)
  async removePasskey(
    @UserId() userId: string,
    @OptionalSession() current: SessionFacts | null,
    @Param('id', ParseObjectIdPipe) id: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<MessageResponseDto> {
    const replaced = await this.changes.remove(userId, current, id, auditOriginOf(request));
    if (replaced) this.sessions.get().setCookie(request, reply, replaced);
    return { message: 'Passkey removed' };
  }
}

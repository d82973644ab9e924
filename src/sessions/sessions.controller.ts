import { Access, SIGNED_IN_USER, type AccessPolicy } from '../access/policy/access-policy';
import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Req, Res } from '@nestjs/common';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { Inject } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { auditOriginOf } from '../audit/audit-context.decorator';
import { MessageResponseDto } from '../common/dto/error-response.dto';
import { ParseObjectIdPipe } from '../common/pipes/parse-object-id.pipe';
import { ApiErrorResponses } from '../common/swagger/api-error-responses.decorator';
import { sessionsConfig } from '../config/sessions.config';
import type { SessionFacts } from '../tenancy/principal';
import { CurrentSession, OptionalSession, UserId } from '../tenancy/tenancy.decorators';
import { toUserResponse } from '../identity/users/users.mapper';
import { CreateSessionDto, StepUpDto } from './dto/sessions.dto';
import { RevokedSessionsResponse, SessionEnvelope, SessionListResponse, SignInResponse } from './dto/session.response';
import { PasskeySignInDto, PasskeyAssertionDto } from '../identity/passkeys/dto/passkey.dto';
import { PasskeyAuthenticationOptions } from '../identity/passkeys/dto/passkey.response';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { clearSessionCookie, setSessionCookie } from './session-cookie';
import { toSessionView } from './sessions.mapper';
import { SessionsService } from './sessions.service';
import { SignInService } from './sign-in.service';
import { StepUpService } from './step-up.service';

const SIGN_IN_EXAMPLE = { email: 'ada@example.com', password: 'correct horse battery' };

/** Signing in: no credential yet. */
const OPEN_TO_ANYONE: AccessPolicy = { credentials: ['anyone'], scope: 'none' };

/** The current session's own routes: a bearer token has no session to act on. */
const SESSION_ONLY: AccessPolicy = { ...SIGNED_IN_USER, credentials: ['session'] };

@ApiTags('sessions')
@Controller('api/v1')
export class SessionsController {
  constructor(
    private readonly sessions: SessionsService,
    private readonly signIns: SignInService,
    private readonly stepUps: StepUpService,
    @Inject(sessionsConfig.KEY) private readonly config: ConfigType<typeof sessionsConfig>,
  ) {}

  @Access(OPEN_TO_ANYONE)
  @Post('sessions')
  @Idempotent()
  @ApiOperation({
    summary: 'Sign in: open a dashboard session',
    description:
      'Sets the session cookie (`__Host-sid`: HttpOnly, SameSite=Lax, Path=/, Secure; `sid` over plain http in development), a new ' +
      'random id at every sign-in. A user with a second factor sends `totp` or `recoveryCode` with the password (without: 401 ' +
      '`code: mfa_required`); the session then has assurance `mfa`. The same check as `POST /api/v1/login`. Unknown email and ' +
      "wrong password get the same 401; the limits of `POST /api/v1/login` apply (429), and wrong codes count toward the user's own " +
      'limit (`MFA_MAX_FAILURES`, 429 with `Retry-After`). Every later request with the cookie that changes anything must carry ' +
      'an `Origin` of `PUBLIC_URL` or of `DASHBOARD_ORIGINS` (403 otherwise). A session ends after `SESSION_IDLE_MINUTES` without a ' +
      'request or `SESSION_MAX_HOURS` after sign-in.',
  })
  @ApiBody({ type: CreateSessionDto, examples: { password: { summary: 'Password only', value: SIGN_IN_EXAMPLE } } })
  @ApiCreatedResponse({
    type: SignInResponse,
    headers: {
      'Set-Cookie': {
        description:
          '__Host-sid=<session token>; Path=/; HttpOnly; SameSite=Lax; Secure (over plain http in development: sid, not Secure)',
        schema: { type: 'string' },
      },
    },
  })
  @ApiErrorResponses(400, 401, 403, 413, 415, 429, 500, 503)
  async createSession(
    @Body() dto: CreateSessionDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SignInResponse> {
    const { token, session, user } = await this.signIns.signIn(dto, auditOriginOf(request));
    setSessionCookie(request, reply, token, this.sessions.maxAgeSeconds, this.config.insecureHttpAllowed);
    return { message: 'Signed in', session: toSessionView(session, true), user: toUserResponse(user) };
  }

  @Access(OPEN_TO_ANYONE)
  @Post('sessions/passkey/options')
  @Idempotent()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Start a passkey ceremony (sign-in or step-up)',
    description:
      'The options for `navigator.credentials.get()` (`@simplewebauthn/browser` `startAuthentication({ optionsJSON })`): a new ' +
      'challenge, single use and valid for a few minutes, any passkey of this service the authenticator holds, the user verified. ' +
      'Send the answer to `POST /api/v1/sessions/passkey` (sign in) or `POST /api/v1/sessions/current/step-up/passkey`. ' +
      'One client address may ask `PASSKEY_OPTIONS_MAX_PER_CLIENT` times within `LOGIN_FAILURE_WINDOW_SECONDS` (with the ' +
      'registration options), answered or not: 429 beyond.',
  })
  @ApiOkResponse({ type: PasskeyAuthenticationOptions })
  @ApiErrorResponses(400, 429, 500, 503)
  async createPasskeyAuthenticationOptions(@Req() request: FastifyRequest): Promise<PasskeyAuthenticationOptions> {
    return this.signIns.passkeyAuthenticationOptions(auditOriginOf(request)) as Promise<PasskeyAuthenticationOptions>;
  }

  @Access(OPEN_TO_ANYONE)
  @Post('sessions/passkey')
  @Idempotent()
  @ApiOperation({
    summary: 'Sign in with a passkey',
    description:
      'With the answer of the authenticator to `POST /api/v1/sessions/passkey/options`: sets the session cookie as a password sign-in ' +
      'does, with assurance `mfa` (the passkey and its verified user are two factors), no password asked. A challenge answers once (a ' +
      'replay: 401); an unknown passkey, a wrong signature or origin, or a signature counter that went backwards: 401. The limit of ' +
      '`POST /api/v1/login` per client address applies (429): a refused answer is a failed login of the address alone, never of the ' +
      'email of the user its passkey names (so failed passwords on that email do not lock the passkey out either), and a sign-in ' +
      'clears those of this address.',
  })
  @ApiCreatedResponse({
    type: SignInResponse,
    headers: {
      'Set-Cookie': {
        description:
          '__Host-sid=<session token>; Path=/; HttpOnly; SameSite=Lax; Secure (over plain http in development: sid, not Secure)',
        schema: { type: 'string' },
      },
    },
  })
  @ApiErrorResponses(400, 401, 403, 413, 415, 429, 500, 503)
  async signInWithPasskey(
    @Body() dto: PasskeySignInDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SignInResponse> {
    const { token, session, user } = await this.signIns.signInWithPasskey(
      dto.credential as AuthenticationResponseJSON,
      dto.accountId,
      auditOriginOf(request),
    );
    setSessionCookie(request, reply, token, this.sessions.maxAgeSeconds, this.config.insecureHttpAllowed);
    return { message: 'Signed in', session: toSessionView(session, true), user: toUserResponse(user) };
  }

  @Access(SIGNED_IN_USER)
  @Get('sessions')
  @ApiOperation({
    summary: "List the user's sessions",
    description:
      'Every live session of the caller, the one of this request marked `current`, with its device, address and last request.',
  })
  @ApiOkResponse({ type: SessionListResponse })
  @ApiErrorResponses(401, 403, 500, 503)
  async listSessions(
    @UserId() userId: string,
    @OptionalSession() current: SessionFacts | null,
  ): Promise<SessionListResponse> {
    return { data: await this.sessions.list(userId, current?.id ?? null) };
  }

  @Access(SESSION_ONLY)
  @Delete('sessions/current')
  @ApiOperation({
    summary: 'Sign out',
    description: 'Ends the session of this request and clears its cookie. A bearer token: 403.',
  })
  @ApiOkResponse({ type: MessageResponseDto, example: { message: 'Signed out' } })
  @ApiErrorResponses(401, 403, 500, 503)
  async signOut(
    @CurrentSession() current: SessionFacts,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<MessageResponseDto> {
    await this.sessions.signOut(current, auditOriginOf(request));
    clearSessionCookie(request, reply, this.config.insecureHttpAllowed);
    return { message: 'Signed out' };
  }

  @Access(SESSION_ONLY)
  @Post('sessions/current/step-up')
  @Idempotent()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Prove the second factor again (step-up)',
    description:
      'With `totp` or `recoveryCode`: the session gets a new id (a new cookie) with assurance `mfa`, which allows the step-up ' +
      'actions (refunds, creating, rolling or revoking keys, removing members, adding or removing a factor, changing the password, ' +
      'transferring ownership, turning `requireMfa` off) for `STEP_UP_MINUTES`. A user without a second factor proves `password` ' +
      'instead (without one: 409); a user with one must prove the factor (the password alone: 401 `code: mfa_required`). Wrong codes ' +
      "count toward the user's code limit (`MFA_MAX_FAILURES`, 429 with `Retry-After`), wrong passwords toward the login limits.",
  })
  @ApiBody({
    type: StepUpDto,
    examples: {
      totp: { summary: 'A code of the authenticator app', value: { totp: '123456' } },
      password: {
        summary: 'The password (a user with no second factor)',
        value: { password: 'correct horse battery' },
      },
    },
  })
  @ApiOkResponse({ type: SessionEnvelope })
  @ApiErrorResponses(400, 401, 403, 409, 413, 415, 429, 500, 503)
  async stepUpSession(
    @CurrentSession() current: SessionFacts,
    @Body() dto: StepUpDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SessionEnvelope> {
    const { token, session } = await this.stepUps.stepUp(current, dto, auditOriginOf(request));
    setSessionCookie(request, reply, token, this.sessions.maxAgeSeconds, this.config.insecureHttpAllowed);
    return { data: toSessionView(session, true) };
  }

  @Access(SESSION_ONLY)
  @Post('sessions/current/step-up/passkey')
  @Idempotent()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Prove the second factor again with a passkey (step-up)',
    description:
      "With the authenticator's answer to `POST /api/v1/sessions/passkey/options`, from one of the session user's passkeys: the session " +
      'gets a new id (a new cookie) with assurance `mfa`, as a step-up with a code. Another passkey, a replayed challenge, a wrong ' +
      'signature: 401, and counted toward the login limits (429). A bearer token: 403.',
  })
  @ApiOkResponse({ type: SessionEnvelope })
  @ApiErrorResponses(400, 401, 403, 413, 415, 429, 500, 503)
  async stepUpSessionWithPasskey(
    @CurrentSession() current: SessionFacts,
    @Body() dto: PasskeyAssertionDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SessionEnvelope> {
    const { token, session } = await this.stepUps.stepUpWithPasskey(
      current,
      dto.credential as AuthenticationResponseJSON,
      auditOriginOf(request),
    );
    setSessionCookie(request, reply, token, this.sessions.maxAgeSeconds, this.config.insecureHttpAllowed);
    return { data: toSessionView(session, true) };
  }

  @Access(SIGNED_IN_USER)
  @Delete('sessions/:id')
  @ApiOperation({ summary: 'End one of your sessions', description: "Another user's session, or an unknown id: 404." })
  @ApiOkResponse({ type: MessageResponseDto, example: { message: 'Session ended' } })
  @ApiErrorResponses(400, 401, 403, 404, 500, 503)
  async revokeSession(
    @UserId() userId: string,
    @Param('id', ParseObjectIdPipe) id: string,
    @Req() request: FastifyRequest,
  ): Promise<MessageResponseDto> {
    await this.sessions.revoke(userId, id, auditOriginOf(request));
    return { message: 'Session ended' };
  }

  @Access(SIGNED_IN_USER)
  @Delete('sessions')
  @ApiOperation({
    summary: 'Sign out other devices',
    description: 'Ends every session of the caller but the one of this request.',
  })
  @ApiOkResponse({ type: RevokedSessionsResponse })
  @ApiErrorResponses(401, 403, 500, 503)
  async revokeOtherSessions(
    @UserId() userId: string,
    @OptionalSession() current: SessionFacts | null,
    @Req() request: FastifyRequest,
  ): Promise<RevokedSessionsResponse> {
    return {
      message: 'Other sessions ended',
      ended: await this.sessions.revokeOthers(userId, current?.id ?? null, auditOriginOf(request)),
    };
  }
}

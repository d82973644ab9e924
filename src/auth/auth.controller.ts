import { Access, SIGNED_IN_USER, type AccessPolicy } from '../access/policy/access-policy';
import { auditOriginOf } from '../audit/audit-context.decorator';
import { Body, Controller, Get, HttpCode, HttpStatus, Post, Req } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Caller } from '../tenancy/tenancy.decorators';
import type { Principal } from '../tenancy/principal';
import { ApiErrorResponses } from '../common/swagger/api-error-responses.decorator';
import { AuthService } from './auth.service';
import { LoginResponse, MeResponse, SignupResponse } from './dto/auth.response';
import { LoginDto } from './dto/login.dto';
import { SignupDto } from './dto/signup.dto';
import { Idempotent } from '../idempotency/idempotent.decorator';

/**
 * A signup answers with the user and the account they are now a member of: the membership's
 * operations take both (with an invitation, that is the inviting account, which its admins manage).
 */
const SIGNUP_LINKS = {
  ChangeMemberRole: {
    operationId: 'changeMemberRole',
    parameters: { accountId: '$response.body#/data/account/id', userId: '$response.body#/data/user/id' },
  },
  RemoveMember: {
    operationId: 'removeMember',
    parameters: { accountId: '$response.body#/data/account/id', userId: '$response.body#/data/user/id' },
  },
  TransferOwnership: {
    operationId: 'transferOwnership',
    parameters: { accountId: '$response.body#/data/account/id' },
    requestBody: { userId: '$response.body#/data/user/id' },
  },
};

/**
 * The bodies Swagger UI's "Try it out" sends: without them it fills in every optional field, an
 * invitation token beside the account's fields (400) and a made-up `accountId` (403).
 */
const SIGNUP_EXAMPLE = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.com',
  password: 'correct horse battery',
  role: 'admin',
  accountType: 'company',
  accountName: 'Analytical Engines Ltd',
};
const LOGIN_EXAMPLE = { email: 'ada@example.com', password: 'correct horse battery' };

/** The access policy the routes below share; a route that asks more adds it beside its handler. */
const OPEN_TO_ANYONE: AccessPolicy = {
  credentials: ['anyone'],
  scope: 'none',
};

@ApiTags('auth')
@Controller('api/v1')
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  @Access(OPEN_TO_ANYONE)
  @Post('singup')
  @Idempotent()
  @ApiOperation({
    summary: 'Create an account',
    description:
      'The path is spelled `singup` as in the original interface; `/api/v1/signup` is an alias. ' +
      'Without `invitationToken` it creates the user, a new account they own (`accountType`, `accountName`) with its ' +
      'default platform project, and their membership with the `role` asked for. With `invitationToken` the user joins ' +
      "the inviting account with the invitation's role instead. `defaultCompany` is that account. Signups are limited per " +
      'client address (429 beyond the limit).',
  })
  @ApiBody({
    type: SignupDto,
    examples: { newAccount: { summary: 'A new account of your own', value: SIGNUP_EXAMPLE } },
  })
  @ApiCreatedResponse({ type: SignupResponse, links: SIGNUP_LINKS })
  @ApiErrorResponses(400, 403, 409, 413, 415, 429, 500, 503)
  signup(@Body() dto: SignupDto, @Req() request: FastifyRequest): Promise<SignupResponse> {
    return this.auth.signup(dto, request.ip, auditOriginOf(request));
  }

  @Access(OPEN_TO_ANYONE)
  @Post('signup')
  @Idempotent()
  @ApiOperation({ summary: 'Create an account (alias of /api/v1/singup)' })
  @ApiBody({
    type: SignupDto,
    examples: { newAccount: { summary: 'A new account of your own', value: SIGNUP_EXAMPLE } },
  })
  @ApiCreatedResponse({ type: SignupResponse, links: SIGNUP_LINKS })
  @ApiErrorResponses(400, 403, 409, 413, 415, 429, 500, 503)
  signupAlias(@Body() dto: SignupDto, @Req() request: FastifyRequest): Promise<SignupResponse> {
    return this.auth.signup(dto, request.ip, auditOriginOf(request));
  }

  @Access(OPEN_TO_ANYONE)
  @Post('login')
  @Idempotent()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Log in and get an access token',
    description:
      'Unknown email and wrong password get the same 401. A user with a second factor (TOTP or a passkey) sends `totp` or ' +
      '`recoveryCode` with the password, as for `POST /api/v1/sessions`: without, 401 with `code: mfa_required` and no token; a ' +
      'wrong or used code, 401. The token carries what was proven (`mfa`, or the password alone, which an account that requires ' +
      'a second factor refuses its data: 403 `mfa_required`). Attempts are limited per target email and per client address ' +
      'within a window (429 beyond); a successful login clears only the attempts on that email from that address; wrong codes ' +
      "count toward the user's own limit (`MFA_MAX_FAILURES`, 429 with `Retry-After`). A login from an address new for the email " +
      "is mailed to the user. The token acts in `accountId` (default: the user's defaultCompany); not a member of it: 403.",
  })
  @ApiBody({
    type: LoginDto,
    examples: { defaultAccount: { summary: 'Into your default account', value: LOGIN_EXAMPLE } },
  })
  @ApiOkResponse({ type: LoginResponse })
  @ApiErrorResponses(400, 401, 403, 413, 415, 429, 500, 503)
  login(@Body() dto: LoginDto, @Req() request: FastifyRequest): Promise<LoginResponse> {
    const agent = request.headers['user-agent'];
    return this.auth.login(dto, request.ip, typeof agent === 'string' ? agent : null, String(request.id));
  }

  @Access(SIGNED_IN_USER)
  @Get('me')
  @ApiOperation({
    summary: 'The user of the bearer token',
    description: "The user, the token's account (with the user's role in it) and every account the user belongs to.",
  })
  @ApiOkResponse({ type: MeResponse })
  @ApiErrorResponses(401, 403, 500, 503)
  getCurrentUser(@Caller() caller: Principal): Promise<MeResponse> {
    return this.auth.me(caller);
  }
}

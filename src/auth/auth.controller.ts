import { Body, Controller, Get, HttpCode, HttpStatus, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { AuthenticatedUser, CurrentUser } from '../common/decorators/current-user.decorator';
import { Public } from '../common/decorators/public.decorator';
import { ApiErrorResponses } from '../common/swagger/api-error-responses.decorator';
import { AuthService } from './auth.service';
import { LoginResponse, SignupResponse, UserDataResponse } from './dto/auth.response';
import { LoginDto } from './dto/login.dto';
import { SignupDto } from './dto/signup.dto';

@ApiTags('auth')
@Controller('api/v1')
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  @Public()
  @Post('singup')
  @ApiOperation({
    summary: 'Create an account',
    description:
      'The path is spelled `singup` as in the original interface; `/api/v1/signup` is an alias. ' +
      'The first user of an empty system may take any role; after that `manager` and `admin` need an admin bearer token.',
  })
  @ApiBearerAuth('bearer')
  @ApiCreatedResponse({ type: SignupResponse })
  @ApiErrorResponses(400, 403, 409, 413, 415, 500, 503)
  signup(@Body() dto: SignupDto, @CurrentUser() caller?: AuthenticatedUser): Promise<SignupResponse> {
    return this.auth.signup(dto, caller);
  }

  @Public()
  @Post('signup')
  @ApiOperation({ summary: 'Create an account (alias of /api/v1/singup)' })
  @ApiBearerAuth('bearer')
  @ApiCreatedResponse({ type: SignupResponse })
  @ApiErrorResponses(400, 403, 409, 413, 415, 500, 503)
  signupAlias(@Body() dto: SignupDto, @CurrentUser() caller?: AuthenticatedUser): Promise<SignupResponse> {
    return this.auth.signup(dto, caller);
  }

  @Public()
  @Post('login')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Log in and get an access token',
    description: 'Unknown email and wrong password get the same 401. Repeated failures from one client get 429.',
  })
  @ApiOkResponse({ type: LoginResponse })
  @ApiErrorResponses(400, 401, 413, 415, 429, 500, 503)
  login(@Body() dto: LoginDto, @Req() request: FastifyRequest): Promise<LoginResponse> {
    return this.auth.login(dto, request.ip);
  }

  @Get('me')
  @ApiOperation({ summary: 'The user of the bearer token' })
  @ApiOkResponse({ type: UserDataResponse })
  @ApiErrorResponses(401, 500, 503)
  me(@CurrentUser() caller: AuthenticatedUser): Promise<UserDataResponse> {
    return this.auth.me(caller);
  }
}

import { ForbiddenException, Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { JwtService } from '@nestjs/jwt';
import * as bcrypt from 'bcrypt';
import { toAddress } from '../common/dto/address.dto';
import { AuthenticatedUser } from '../common/decorators/current-user.decorator';
import { authConfig } from '../config/auth.config';
import { toUserResponse } from '../users/users.mapper';
import { UsersService } from '../users/users.service';
import { LoginDto } from './dto/login.dto';
import { LoginResponse, SignupResponse, UserDataResponse } from './dto/auth.response';
import { SignupDto } from './dto/signup.dto';
import { AccessTokenClaims } from './jwt-auth.guard';
import { LoginFailuresService } from './login-failures.service';

const INVALID_CREDENTIALS = 'Invalid email or password';

@Injectable()
export class AuthService {
  /** Compared against when the email is unknown, so both failures take the same time. */
  private readonly dummyHash: Promise<string>;

  constructor(
    private readonly users: UsersService,
    private readonly jwt: JwtService,
    private readonly loginFailures: LoginFailuresService,
    @Inject(authConfig.KEY) private readonly config: ConfigType<typeof authConfig>,
  ) {
    this.dummyHash = bcrypt.hash('not-a-real-password', this.config.bcryptRounds);
  }

  async signup(dto: SignupDto, caller?: AuthenticatedUser): Promise<SignupResponse> {
    const privileged = dto.role !== 'developer';
    const callerIsAdmin = caller?.role === 'admin';
    const claimedFirst = privileged && !callerIsAdmin ? await this.users.claimFirstUser() : false;
    if (privileged && !callerIsAdmin && !claimedFirst) {
      throw new ForbiddenException(`Only an admin can create a ${dto.role} account`);
    }

    const passwordHash = await bcrypt.hash(dto.password, this.config.bcryptRounds);
    try {
      const user = await this.users.create({
        firstName: dto.firstName,
        lastName: dto.lastName,
        email: dto.email,
        passwordHash,
        role: dto.role,
        phoneNumber: dto.phoneNumber,
        address: dto.address && toAddress(dto.address),
        avatar: dto.avatar,
      });
      return { message: 'User created', data: { user: toUserResponse(user) } };
    } catch (error) {
      if (claimedFirst) await this.users.releaseFirstUser();
      throw error;
    }
  }

  async login(dto: LoginDto, client: string): Promise<LoginResponse> {
    this.loginFailures.assertNotBlocked(client);
    const user = await this.users.findByEmailWithHash(dto.email);
    const matches = await bcrypt.compare(dto.password, user?.passwordHash ?? (await this.dummyHash));
    if (!user || !matches) {
      this.loginFailures.recordFailure(client);
      throw new UnauthorizedException(INVALID_CREDENTIALS);
    }
    this.loginFailures.reset(client);
    const claims: AccessTokenClaims = { sub: String(user._id), role: user.role };
    return {
      message: 'Login successful',
      accessToken: await this.jwt.signAsync(claims),
      data: { user: toUserResponse(user) },
    };
  }

  async me(caller: AuthenticatedUser): Promise<UserDataResponse> {
    const user = await this.users.findById(caller.id);
    if (!user) throw new UnauthorizedException('The account of this token no longer exists');
    return { data: { user: toUserResponse(user) } };
  }
}

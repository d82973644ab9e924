import { ApiProperty } from '@nestjs/swagger';
import { AccountView } from '../../accounts/dto/account.response';
import { UserResponse } from '../../identity/users/dto/user.response';

export class UserEnvelope {
  @ApiProperty({ type: UserResponse })
  user: UserResponse;

  @ApiProperty({
    type: AccountView,
    nullable: true,
    description: 'The account this answer concerns; null for a user who belongs to none',
  })
  account: AccountView | null;
}

export class MeEnvelope extends UserEnvelope {
  @ApiProperty({ type: [AccountView], description: 'Every account the user belongs to' })
  memberships: AccountView[];
}

export class MeResponse {
  @ApiProperty({ type: MeEnvelope })
  data: MeEnvelope;
}

export class UserDataResponse {
  @ApiProperty({ type: UserEnvelope })
  data: UserEnvelope;
}

export class SignupResponse extends UserDataResponse {
  @ApiProperty({ example: 'User created' })
  message: string;
}

export class LoginResponse extends UserDataResponse {
  @ApiProperty({ example: 'Login successful' })
  message: string;

  @ApiProperty({
    description: 'HS256 JWT; send as `Authorization: Bearer <accessToken>`',
    example: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9...',
  })
  accessToken: string;
}

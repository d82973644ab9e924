import { ApiProperty } from '@nestjs/swagger';
import { UserResponse } from '../../users/dto/user.response';

export class UserEnvelope {
  @ApiProperty({ type: UserResponse })
  user: UserResponse;
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

  @ApiProperty({ description: 'HS256 JWT; send as `Authorization: Bearer <accessToken>`', example: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9...' })
  accessToken: string;
}

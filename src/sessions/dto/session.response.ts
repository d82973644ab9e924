import { ApiProperty } from '@nestjs/swagger';
import { ASSURANCES, type Assurance } from '../session.schema';
import { UserResponse } from '../../identity/users/dto/user.response';

export class SessionView {
  @ApiProperty({ example: '665f1f77bcf86cd799439011' })
  id: string;

  @ApiProperty({ description: 'The session of this request' })
  current: boolean;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Browser and system, read from the user agent',
    example: 'Firefox 128 on macOS',
  })
  device: string | null;

  @ApiProperty({ type: String, nullable: true })
  userAgent: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'The client address at sign-in', example: '203.0.113.7' })
  ip: string | null;

  @ApiProperty({ enum: ASSURANCES, description: '`mfa` when a second factor was proven at sign-in or since' })
  assurance: Assurance;

  @ApiProperty({ description: 'When the user signed in', format: 'date-time' })
  createdAt: string;

  @ApiProperty({ description: 'Last request, to the minute', format: 'date-time' })
  lastSeenAt: string;
}

export class SessionListResponse {
  @ApiProperty({ type: [SessionView] })
  data: SessionView[];
}

export class SessionEnvelope {
  @ApiProperty({ type: SessionView })
  data: SessionView;
}

export class SignInResponse {
  @ApiProperty({ example: 'Signed in' })
  message: string;

  @ApiProperty({ type: SessionView })
  session: SessionView;

  @ApiProperty({ type: UserResponse })
  user: UserResponse;
}

export class RevokedSessionsResponse {
  @ApiProperty({ example: 'Other sessions ended' })
  message: string;

  @ApiProperty({ description: 'How many sessions ended', example: 2 })
  ended: number;
}

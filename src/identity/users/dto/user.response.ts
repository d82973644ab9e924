import { ApiProperty } from '@nestjs/swagger';
import { USER_ROLES, type UserRole } from '../../../common/decorators/roles.decorator';
import { USER_STATUSES } from '../user.schema';

export class UserResponse {
  @ApiProperty({ example: '6650c0ffee0000000000a001' })
  id: string;

  @ApiProperty({ example: 'Ada' })
  firstName: string;

  @ApiProperty({ example: 'Lovelace' })
  lastName: string;

  @ApiProperty({ example: '', description: 'Empty string when unset' })
  userName: string;

  @ApiProperty({ example: 'ada@example.com', format: 'email' })
  email: string;

  @ApiProperty({
    enum: USER_ROLES,
    example: 'developer',
    description: "The user's role in the account this response concerns",
  })
  role: UserRole;

  @ApiProperty({ enum: USER_STATUSES, example: 'active' })
  status: string;

  @ApiProperty({ type: 'integer', nullable: true, example: null })
  phoneNumber: number | null;

  @ApiProperty({ type: String, nullable: true, example: null })
  avatar: string | null;

  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true, example: null })
  address: Record<string, unknown> | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '6650c0ffee0000000000e001',
    description: 'The account a login acts in when it names none',
  })
  defaultCompany: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: null,
    description: 'When the email was verified (the link mailed at signup); null until then',
  })
  emailVerifiedAt: string | null;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt: string;
}

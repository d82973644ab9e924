import { ApiProperty } from '@nestjs/swagger';
import { USER_ROLES, type UserRole } from '../../common/decorators/roles.decorator';
import { ACCOUNT_TYPES, type AccountType } from '../account.schema';

/** An account as one of its members sees it. */
export class AccountView {
  @ApiProperty({ example: '6650c0ffee0000000000e001' })
  id: string;

  @ApiProperty({ example: 'Ada Lovelace' })
  name: string;

  @ApiProperty({ enum: ACCOUNT_TYPES, example: 'company' })
  type: AccountType;

  @ApiProperty({ enum: USER_ROLES, example: 'admin', description: "The caller's role in this account" })
  role: UserRole;

  @ApiProperty({ description: 'Whether the caller owns this account' })
  owner: boolean;

  @ApiProperty({
    example: '6650c0ffee0000000000f001',
    description: 'The platform project a request acts in without X-Project-Id',
  })
  defaultProjectId: string;

  @ApiProperty({
    description:
      'The owner requires a second factor of every member (sessions signed in with a password alone: 403 `mfa_required`)',
  })
  requireMfa: boolean;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;
}

export class AccountEnvelope {
  @ApiProperty({ type: AccountView })
  data: AccountView;
}

export class AccountListResponse {
  @ApiProperty({ type: [AccountView] })
  data: AccountView[];
}

export class MemberView {
  @ApiProperty({ example: '6650c0ffee0000000000a001' })
  userId: string;

  @ApiProperty({ example: 'Ada' })
  firstName: string;

  @ApiProperty({ example: 'Lovelace' })
  lastName: string;

  @ApiProperty({ example: 'ada@example.com', format: 'email' })
  email: string;

  @ApiProperty({ enum: USER_ROLES, example: 'developer' })
  role: UserRole;

  @ApiProperty({ description: 'Whether this member owns the account' })
  owner: boolean;

  @ApiProperty({ format: 'date-time' })
  joinedAt: string;
}

export class MemberListResponse {
  @ApiProperty({ type: [MemberView] })
  data: MemberView[];
}

export class MemberEnvelope {
  @ApiProperty({ type: MemberView })
  data: MemberView;
}

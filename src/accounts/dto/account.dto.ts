import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsMongoId } from 'class-validator';
import { IsOptionalNotNull } from '../../common/validators/is-optional-not-null';
import { USER_ROLES, type UserRole } from '../../common/decorators/roles.decorator';
import { NotBlankText } from '../../common/validators/trimmed-text';
import { ACCOUNT_TYPES, type AccountType } from '../account.schema';
import { OBJECT_ID_PATTERN } from '../../common/pipes/object-id';

export class CreateAccountDto {
  @NotBlankText(100, 'Analytical Engines Ltd')
  name: string;

  @ApiProperty({ enum: ACCOUNT_TYPES, example: 'company' })
  @IsIn(ACCOUNT_TYPES, { message: `type must be one of: ${ACCOUNT_TYPES.join(', ')}` })
  type: AccountType;
}

export class UpdateAccountDto extends PartialType(CreateAccountDto, { skipNullProperties: false }) {
  @ApiPropertyOptional({
    description:
      'The owner only: require a second factor of every member. Sessions signed in with a password alone then get 403 ' +
      '`code: mfa_required` on this account. The owner needs a factor of their own first (409).',
  })
  @IsOptionalNotNull()
  @IsBoolean({ message: 'requireMfa must be a boolean' })
  requireMfa?: boolean;
}

export class TransferOwnershipDto {
  @ApiProperty({ description: 'A member of the account', pattern: OBJECT_ID_PATTERN })
  @IsMongoId({ message: 'userId must be a valid id' })
  userId: string;
}

export class ChangeRoleDto {
  @ApiProperty({ enum: USER_ROLES, example: 'manager' })
  @IsIn(USER_ROLES, { message: `role must be one of: ${USER_ROLES.join(', ')}` })
  role: UserRole;
}

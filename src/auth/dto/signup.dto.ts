import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsDateString,
  IsEmail,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUrl,
  Max,
  MaxLength,
  Min,
  Length,
  ValidateIf,
} from 'class-validator';
import { Transform } from 'class-transformer';
import { ACCOUNT_TYPES, type AccountType } from '../../accounts/account.schema';
import { IsOptionalNotNull } from '../../common/validators/is-optional-not-null';
import { NotBlankText, trimWithin } from '../../common/validators/trimmed-text';
import { USER_ROLES, type UserRole } from '../../common/decorators/roles.decorator';
import { AddressDto, ApiAddress } from '../../common/dto/address.dto';
import { IsNewPassword } from '../../identity/passwords/new-password';

export class SignupDto {
  @NotBlankText(100, 'Ada')
  firstName: string;

  @NotBlankText(100, 'Lovelace')
  lastName: string;

  @ApiProperty({ example: 'ada@example.com', format: 'email', maxLength: 254 })
  @IsEmail({}, { message: 'email must be an email' })
  @MaxLength(254)
  email: string;

  @IsNewPassword('correct horse battery')
  password: string;

  @ApiPropertyOptional({
    enum: USER_ROLES,
    example: 'admin',
    description:
      'Without an invitation: required, any of the three (the new account is yours anyway). ' +
      "With `invitationToken`: may be left out, or must equal the invitation's role.",
  })
  @ValidateIf((dto: SignupDto) => dto.role !== undefined || dto.invitationToken === undefined)
  @IsIn(USER_ROLES, { message: `role must be one of: ${USER_ROLES.join(', ')}` })
  role?: UserRole;

  @ApiPropertyOptional({
    enum: ACCOUNT_TYPES,
    default: 'developer',
    description: 'Type of the new account; refused with an invitation',
  })
  @IsOptionalNotNull()
  @IsIn(ACCOUNT_TYPES, { message: `accountType must be one of: ${ACCOUNT_TYPES.join(', ')}` })
  accountType?: AccountType;

  @ApiPropertyOptional({
    example: 'Analytical Engines Ltd',
    maxLength: 100,
    description: 'Name of the new account (default "<firstName> <lastName>"); refused with an invitation',
  })
  @IsOptionalNotNull()
  @Transform(trimWithin(100))
  @IsString()
  @IsNotEmpty({ message: 'accountName must not be empty' })
  @MaxLength(100)
  accountName?: string;

  @ApiPropertyOptional({
    minLength: 10,
    maxLength: 200,
    description: "Join the inviting account with the invitation's role instead of creating one",
  })
  @IsOptionalNotNull()
  @IsString()
  @Length(10, 200)
  invitationToken?: string;

  @ApiPropertyOptional({
    type: 'integer',
    format: 'int64',
    example: 5551234567,
    minimum: 0,
    maximum: Number.MAX_SAFE_INTEGER,
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  phoneNumber?: number;

  @IsOptional()
  @ApiAddress({ example: { line1: '12 Analytical Row', city: 'London', country: 'GB' } })
  address?: AddressDto;

  @ApiPropertyOptional({ example: 'https://example.com/ada.png', format: 'uri', maxLength: 2048 })
  @IsOptional()
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true }, { message: 'avatar must be an http(s) URL' })
  @MaxLength(2048)
  avatar?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    maxLength: 40,
    description: 'Accepted for compatibility and ignored: the server sets timestamps',
  })
  @IsOptional()
  @IsDateString()
  @MaxLength(40)
  createdAt?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    maxLength: 40,
    description: 'Accepted for compatibility and ignored: the server sets timestamps',
  })
  @IsOptional()
  @IsDateString()
  @MaxLength(40)
  updatedAt?: string;
}

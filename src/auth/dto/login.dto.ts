import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsMongoId, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { OBJECT_ID_PATTERN } from '../../common/pipes/object-id';
import { IsOptionalNotNull } from '../../common/validators/is-optional-not-null';

export class LoginDto {
  @ApiProperty({ example: 'ada@example.com', format: 'email', maxLength: 254 })
  @IsEmail({}, { message: 'email must be an email' })
  @MaxLength(254)
  email: string;

  @ApiProperty({ example: 'correct horse battery', minLength: 1, maxLength: 1024 })
  @IsString()
  @MinLength(1, { message: 'password must not be empty' })
  @MaxLength(1024)
  password: string;

  @ApiPropertyOptional({
    pattern: OBJECT_ID_PATTERN,
    description: "The account the token acts in; default: the user's defaultCompany",
  })
  @IsOptionalNotNull()
  @IsMongoId({ message: 'accountId must be a valid id' })
  accountId?: string;

  @ApiPropertyOptional({
    description:
      'For a user with a second factor (TOTP or a passkey): the 6-digit code of the authenticator app. Without it (or recoveryCode) ' +
      'such a user gets 401 `code: mfa_required`',
    example: '123456',
    pattern: '^\\d{6}$',
    minLength: 6,
    maxLength: 6,
  })
  @IsOptionalNotNull()
  @Matches(/^\d{6}$/, { message: 'totp must be 6 digits' })
  totp?: string;

  @ApiPropertyOptional({
    description: 'For a user with a second factor: one recovery code instead of totp (single use)',
    example: 'abcde-fghij',
    maxLength: 32,
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(32)
  recoveryCode?: string;
}

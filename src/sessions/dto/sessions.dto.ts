import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { LoginDto } from '../../auth/dto/login.dto';
import { IsOptionalNotNull } from '../../common/validators/is-optional-not-null';

const TOTP = /^\d{6}$/;

/** A second factor: a code from the authenticator app or one recovery code (not both). */
export class FactorDto {
  @ApiPropertyOptional({
    description: 'The 6-digit code of the authenticator app',
    example: '123456',
    pattern: '^\\d{6}$',
    minLength: 6,
    maxLength: 6,
  })
  @IsOptionalNotNull()
  @Matches(TOTP, { message: 'totp must be 6 digits' })
  totp?: string;

  @ApiPropertyOptional({ description: 'One of the recovery codes (single use)', example: 'abcde-fghij', maxLength: 32 })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(32)
  recoveryCode?: string;
}

/** The same fields, and the same rules, as `POST /api/v1/login`'s (email, password, totp or recoveryCode, accountId). */
export class CreateSessionDto extends LoginDto {}

/** A step-up: a code of the second factor, or (for a user with none) the password. */
export class StepUpDto extends FactorDto {
  @ApiPropertyOptional({
    description: 'For a user with no second factor: the password, proven again',
    example: 'correct horse battery',
    minLength: 1,
    maxLength: 1024,
  })
  @IsOptionalNotNull()
  @IsString()
  @MinLength(1, { message: 'password must not be empty' })
  @MaxLength(1024)
  password?: string;
}

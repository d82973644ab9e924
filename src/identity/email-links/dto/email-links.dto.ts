import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, IsString, MaxLength, MinLength, Validate } from 'class-validator';
import { MaxBytes } from '../../../common/validators/max-bytes.validator';

export class RequestPasswordResetDto {
  @ApiProperty({ example: 'ada@example.com', format: 'email', maxLength: 254 })
  @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value))
  @IsEmail({}, { message: 'email must be an email' })
  @MaxLength(254)
  email: string;
}

/** The same rules as signup's password. */
export class ResetPasswordDto {
  @ApiProperty({
    example: 'a new horse battery staple',
    minLength: 8,
    maxLength: 72,
    description: '8 characters to 72 bytes',
  })
  @IsString()
  @MinLength(8, { message: 'password must be at least 8 characters long' })
  @Validate(MaxBytes, [72], { message: 'password must be at most 72 bytes long' })
  password: string;
}

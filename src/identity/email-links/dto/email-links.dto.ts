import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, MaxLength } from 'class-validator';
import { IsNewPassword } from '../../passwords/new-password';

export class RequestPasswordResetDto {
  @ApiProperty({ example: 'ada@example.com', format: 'email', maxLength: 254 })
  @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value))
  @IsEmail({}, { message: 'email must be an email' })
  @MaxLength(254)
  email: string;
}

/** The same rules as signup's password. */
export class ResetPasswordDto {
  @IsNewPassword('a new horse battery staple')
  password: string;
}

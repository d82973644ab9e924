import { ApiProperty } from '@nestjs/swagger';
import { Matches } from 'class-validator';

const TOTP = /^\d{6}$/;

export class TotpCodeDto {
  @ApiProperty({
    description: 'The 6-digit code the authenticator app shows now',
    example: '123456',
    pattern: '^\\d{6}$',
    minLength: 6,
    maxLength: 6,
  })
  @Matches(TOTP, { message: 'code must be 6 digits' })
  code: string;
}

import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsString, MinLength, Validate } from 'class-validator';
import { MaxBytes } from '../../common/validators/max-bytes.validator';

/**
 * A password a user chooses (at signup, on a change, on a reset): 8 characters to 72 bytes, the
 * most bcrypt reads. One rule, so no path accepts a password another would refuse.
 */
export function IsNewPassword(example: string): PropertyDecorator {
  return applyDecorators(
    ApiProperty({ example, minLength: 8, maxLength: 72, description: '8 characters to 72 bytes' }),
    IsString(),
    MinLength(8, { message: 'password must be at least 8 characters long' }),
    Validate(MaxBytes, [72], { message: 'password must be at most 72 bytes long' }),
  );
}

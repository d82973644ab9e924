import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength, MinLength, Validate } from 'class-validator';
import { MaxBytes } from '../../../common/validators/max-bytes.validator';

export class ChangePasswordDto {
  @ApiProperty({ example: 'correct horse battery', minLength: 1, maxLength: 1024 })
  @IsString()
  @MinLength(1, { message: 'currentPassword must not be empty' })
  @MaxLength(1024)
  currentPassword: string;

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

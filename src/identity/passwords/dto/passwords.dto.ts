import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength, MinLength } from 'class-validator';
import { IsNewPassword } from '../new-password';

export class ChangePasswordDto {
  @ApiProperty({ example: 'correct horse battery', minLength: 1, maxLength: 1024 })
  @IsString()
  @MinLength(1, { message: 'currentPassword must not be empty' })
  @MaxLength(1024)
  currentPassword: string;

  @IsNewPassword('a new horse battery staple')
  password: string;
}

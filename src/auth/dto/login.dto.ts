import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsString, MaxLength, MinLength } from 'class-validator';

export class LoginDto {
  @ApiProperty({ example: 'ada@example.com', format: 'email' })
  @IsEmail({}, { message: 'email must be an email' })
  @MaxLength(254)
  email: string;

  @ApiProperty({ example: 'correct horse battery', minLength: 1 })
  @IsString()
  @MinLength(1, { message: 'password must not be empty' })
  @MaxLength(1024)
  password: string;
}

import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsDateString, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { IsOptionalNotNull } from '../../common/validators/is-optional-not-null';

export class CreateShareLinkDto {
  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    maxLength: 40,
    nullable: true,
    example: '2030-01-01T00:00:00.000Z',
    description: 'When the link stops working (404 from then on); must be in the future. Left out or null: never.',
  })
  @IsOptional()
  @IsDateString({ strict: true }, { message: 'expiresAt must be an ISO 8601 date-time' })
  @MaxLength(40)
  expiresAt?: string | null;

  @ApiPropertyOptional({
    type: String,
    minLength: 8,
    maxLength: 72,
    example: 'blue-hours-preview',
    description:
      'A password viewers send in `X-Share-Password` (401 when missing or wrong); stored as a bcrypt hash. Left out: none.',
  })
  @IsOptionalNotNull()
  @IsString()
  @MinLength(8)
  // bcrypt reads 72 bytes at most: a longer password would match on its start alone.
  @MaxLength(72)
  password?: string;
}

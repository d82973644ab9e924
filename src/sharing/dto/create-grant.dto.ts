import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDateString, IsEmail, IsIn, IsMongoId, IsOptional, MaxLength, ValidateIf } from 'class-validator';
import { OBJECT_ID_PATTERN } from '../../common/pipes/object-id';
import { GRANT_ROLES, type GrantRole } from '../grant.schema';

/** Exactly one of `userId` and `email`. */
export class CreateGrantDto {
  @ApiPropertyOptional({
    pattern: OBJECT_ID_PATTERN,
    description: 'The user granted (any user of the service); or send `email` instead',
  })
  @ValidateIf((grant: CreateGrantDto) => grant.userId !== undefined || grant.email === undefined)
  @IsMongoId({ message: 'send either userId (a valid id) or email' })
  userId?: string;

  @ApiPropertyOptional({
    format: 'email',
    maxLength: 254,
    example: 'viewer@example.com',
    description: 'Whoever has, or later signs up with, this address (any case); or send `userId` instead',
  })
  @ValidateIf((grant: CreateGrantDto) => grant.email !== undefined || grant.userId === undefined)
  @Transform(({ value }) => (typeof value === 'string' && value.length <= 254 ? value.trim().toLowerCase() : value))
  @IsEmail({}, { message: 'email must be an email' })
  @MaxLength(254)
  email?: string;

  @ApiProperty({
    enum: GRANT_ROLES,
    example: 'viewer',
    description: 'viewer: reads the project through the /viewer routes; editor: the same, recorded as an editor',
  })
  @IsIn(GRANT_ROLES, { message: `role must be one of: ${GRANT_ROLES.join(', ')}` })
  role: GrantRole;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    maxLength: 40,
    nullable: true,
    example: '2030-01-01T00:00:00.000Z',
    description: 'When the grant ends; must be in the future. Left out or null: never.',
  })
  @IsOptional()
  @IsDateString({ strict: true }, { message: 'expiresAt must be an ISO 8601 date-time' })
  @MaxLength(40)
  expiresAt?: string | null;
}

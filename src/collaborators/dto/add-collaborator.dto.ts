import { ApiProperty, ApiPropertyOptional, OmitType, PartialType } from '@nestjs/swagger';
import { IsDateString, IsIn, IsMongoId, IsOptional, MaxLength } from 'class-validator';
import { OBJECT_ID_PATTERN } from '../../common/pipes/object-id';
import { CHANNEL_ROLES, type ChannelRole } from '../collaborator.schema';

export class AddCollaboratorDto {
  // No example: none could name a member of the caller's account.
  @ApiProperty({ pattern: OBJECT_ID_PATTERN, description: 'A member of the account (404 otherwise)' })
  @IsMongoId({ message: 'userId must be a valid id' })
  userId: string;

  @ApiProperty({ enum: CHANNEL_ROLES, example: 'editor', description: 'owner, manager, editor or viewer' })
  @IsIn(CHANNEL_ROLES, { message: `role must be one of: ${CHANNEL_ROLES.join(', ')}` })
  role: ChannelRole;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    maxLength: 40,
    nullable: true,
    example: '2030-01-01T00:00:00.000Z',
    description: 'When the role ends (must be in the future); left out or null: never',
  })
  @IsOptional()
  @IsDateString({ strict: true }, { message: 'expiresAt must be an ISO 8601 date-time' })
  @MaxLength(40)
  expiresAt?: string | null;
}

/** Another role, another end, or both. */
export class ChangeCollaboratorDto extends PartialType(OmitType(AddCollaboratorDto, ['userId'] as const), {
  skipNullProperties: false,
}) {}

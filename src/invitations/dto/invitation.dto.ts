import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, IsIn, IsString, Length, MaxLength } from 'class-validator';
import { USER_ROLES, type UserRole } from '../../common/decorators/roles.decorator';
import { INVITATION_STATUSES, type InvitationStatus } from '../invitation.schema';

export class CreateInvitationDto {
  @ApiProperty({ example: 'grace@example.com', format: 'email', maxLength: 254 })
  @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value))
  @IsEmail({}, { message: 'email must be an email' })
  @MaxLength(254)
  email: string;

  @ApiProperty({ enum: USER_ROLES, example: 'developer' })
  @IsIn(USER_ROLES, { message: `role must be one of: ${USER_ROLES.join(', ')}` })
  role: UserRole;
}

export class AcceptInvitationDto {
  @ApiProperty({ description: 'The token the inviter passed on', minLength: 10, maxLength: 200 })
  @IsString()
  @Length(10, 200)
  token: string;
}

export class InvitationView {
  @ApiProperty({ example: '6650c0ffee0000000000b001' })
  id: string;

  @ApiProperty({ example: 'grace@example.com', format: 'email' })
  email: string;

  @ApiProperty({ enum: USER_ROLES, example: 'developer' })
  role: UserRole;

  @ApiProperty({ enum: INVITATION_STATUSES, example: 'pending' })
  status: InvitationStatus;

  @ApiProperty({ format: 'date-time' })
  expiresAt: string;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;
}

export class CreatedInvitationView extends InvitationView {
  @ApiProperty({
    description: 'Shown once: pass it on to the invited person',
    example: 'inv_Q2hhcmxlcyBCYWJiYWdlIGFuZCBBZGEgTG92ZWxhY2U',
  })
  token: string;
}

export class CreatedInvitationEnvelope {
  @ApiProperty({ type: CreatedInvitationView })
  data: CreatedInvitationView;
}

export class InvitationListResponse {
  @ApiProperty({ type: [InvitationView] })
  data: InvitationView[];
}

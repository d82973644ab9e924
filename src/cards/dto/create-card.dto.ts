import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsMongoId, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { OBJECT_ID_PATTERN } from '../../common/pipes/object-id';

export const EXP_MONTH_PATTERN = /^\d{1,2}$/;
export const EXP_YEAR_PATTERN = /^(\d{2}|\d{4})$/;

/**
 * The original interface marks every field optional, but a card cannot exist without its number,
 * expiry and CVC: those four are required. Only `customer` may be left out.
 */
export class CreateCardDto {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    pattern: OBJECT_ID_PATTERN,
    description:
      'Id of an existing customer (else 400). Left out or null: a new customer (email null) is created and its id returned as `customer`.',
  })
  @IsOptional()
  @IsMongoId({ message: 'customer must be a valid id' })
  customer?: string | null;

  @ApiProperty({
    example: '4242424242424242',
    maxLength: 40,
    pattern: '^[0-9 -]+$',
    description:
      'Test mode: one of the designated test card numbers; spaces and dashes are ignored. A number that fails the ' +
      'checksum is "invalid card number"; any other valid number, a real card included, is refused. Never stored or returned.',
  })
  @IsString()
  @MaxLength(40)
  @Matches(/^[\d -]+$/, { message: 'cardNumber must contain only digits, spaces and dashes' })
  cardNumber: string;

  @ApiProperty({ example: '04', pattern: '^\\d{1,2}$', maxLength: 2, description: 'Month 1-12; "4" and "04" alike' })
  @IsString()
  @Matches(EXP_MONTH_PATTERN, { message: 'expMonth must be a month from 1 to 12 ("4" or "04")' })
  expMonth: string;

  @ApiProperty({
    example: '2030',
    pattern: '^(\\d{2}|\\d{4})$',
    maxLength: 4,
    description:
      '2 digits (20yy) or 4 digits. The expiry (month and year) must not be in the past; the current month is valid.',
  })
  @IsString()
  @Matches(EXP_YEAR_PATTERN, { message: 'expYear must be a year of 2 or 4 digits' })
  expYear: string;

  @ApiProperty({
    example: '123',
    pattern: '^\\d{3,4}$',
    maxLength: 4,
    description: '3 digits; 4 for American Express. Checked, never stored or returned.',
  })
  @IsString()
  @Matches(/^\d{3,4}$/, { message: 'cvc must be 3 digits (4 for American Express)' })
  cvc: string;
}

import { ApiPropertyOptional, OmitType, PartialType } from '@nestjs/swagger';
import { IsMongoId, IsOptional } from 'class-validator';
import { CreateCustomerDto } from './create-customer.dto';
import { OBJECT_ID_PATTERN } from '../../common/pipes/object-id';

/**
 * Any subset of the create fields, email included. Fields that default to null accept null (to clear
 * them); the others refuse it rather than store it.
 */
export class UpdateCustomerDto extends PartialType(OmitType(CreateCustomerDto, ['defaultMethod'] as const), {
  skipNullProperties: false,
}) {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    pattern: OBJECT_ID_PATTERN,
    description: "Id of one of this customer's cards (else 400), or null to clear the default",
  })
  @IsOptional()
  @IsMongoId({ message: 'defaultMethod must be a valid id' })
  defaultMethod?: string | null;
}

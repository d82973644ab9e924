import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional } from 'class-validator';

export class DeleteProjectQuery {
  @ApiPropertyOptional({
    type: Boolean,
    default: false,
    description: 'Also delete every sub-project below it; without it, a project with sub-projects answers 409',
  })
  @IsOptional()
  @Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean({ message: 'cascade must be true or false' })
  cascade: boolean = false;
}

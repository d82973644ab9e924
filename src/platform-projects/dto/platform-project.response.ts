import { ApiProperty } from '@nestjs/swagger';
import { API_NAMES, type ApiName } from '../../tenancy/api-names';

/** A platform project: the boundary of data inside an account. */
export class PlatformProjectView {
  @ApiProperty({ example: '6650c0ffee0000000000f001' })
  id: string;

  @ApiProperty({ example: 'Mobile app' })
  name: string;

  @ApiProperty({
    type: [String],
    enum: API_NAMES,
    example: [...API_NAMES],
    description: 'In a fixed order: ' + API_NAMES.join(', '),
  })
  enabledApis: ApiName[];

  @ApiProperty({
    description:
      "Whether this is the account's default project (where a request acts without X-Project-Id); it cannot be deleted",
  })
  isDefault: boolean;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt: string;
}

export class PlatformProjectEnvelope {
  @ApiProperty({ type: PlatformProjectView })
  data: PlatformProjectView;
}

export class PlatformProjectListResponse {
  @ApiProperty({ type: [PlatformProjectView] })
  data: PlatformProjectView[];
}

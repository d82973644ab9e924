import { ApiProperty } from '@nestjs/swagger';
import { ASSET_ERROR_CODES, ASSET_KINDS, ASSET_STATUSES } from '../asset.schema';

export class AssetErrorResponse {
  @ApiProperty({ enum: ASSET_ERROR_CODES, example: 'type_mismatch' })
  code: string;

  @ApiProperty({ example: 'The bytes are image/jpeg, not the declared image/png' })
  message: string;
}

export class AssetResponse {
  @ApiProperty({ example: '6650c0ffee0000000000e001' })
  id: string;

  @ApiProperty({ description: 'The content project the asset belongs to', example: '6650c0ffee0000000000d001' })
  projectId: string;

  @ApiProperty({ enum: ASSET_KINDS, example: 'image' })
  kind: string;

  @ApiProperty({ example: 'Cover' })
  title: string;

  @ApiProperty({ type: String, nullable: true, example: 'The album cover, front' })
  description: string | null;

  @ApiProperty({ example: 'cover.png' })
  fileName: string;

  @ApiProperty({ type: 'integer', format: 'int64', description: 'Bytes', example: 48213 })
  size: number;

  @ApiProperty({
    description: 'The type declared at creation; `contentType` is what the bytes are',
    example: 'image/png',
  })
  mimeType: string;

  @ApiProperty({
    enum: ASSET_STATUSES,
    description: '`waiting` (no byte yet) -> `uploading` -> `processing` -> `ready` | `errored`',
    example: 'ready',
  })
  status: string;

  @ApiProperty({ type: AssetErrorResponse, nullable: true, description: 'Why the asset is `errored`; null otherwise' })
  error: AssetErrorResponse | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'SHA-256 of the stored bytes (hex), once processed',
    example: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  })
  sha256: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The type sniffed from the bytes, once processed',
    example: 'image/png',
  })
  contentType: string | null;

  @ApiProperty({ type: 'integer', nullable: true, description: 'Pixels, images only', example: 1600 })
  width: number | null;

  @ApiProperty({ type: 'integer', nullable: true, description: 'Pixels, images only', example: 1600 })
  height: number | null;

  @ApiProperty({ type: Number, nullable: true, description: 'Audio and video, where a probe reads it', example: 183.4 })
  durationSeconds: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Where the thumbnail of a ready image is (WebP)',
    example: '/assets/6650c0ffee0000000000e001/thumbnail',
  })
  thumbnailUrl: string | null;

  @ApiProperty({ example: '2026-11-26T09:30:00.000Z' })
  createdAt: string;

  @ApiProperty({ example: '2026-11-26T09:30:00.000Z' })
  updatedAt: string;
}

export class AssetUploadTarget {
  @ApiProperty({
    description:
      'The one-time tus 1.0 upload URL of this asset: no other credential is needed with it. Create the upload with a `POST` ' +
      "(`Upload-Length` equal to the asset's `size`), or resume with `HEAD` and `PATCH`.",
    example: 'https://api.example.com/uploads/6650c0ffee0000000000e001/0f3c9a...',
  })
  url: string;

  @ApiProperty({
    description: 'The upload must be finished by then, else the asset is `errored` (`upload_expired`)',
    example: '2026-11-27T09:30:00.000Z',
  })
  expiresAt: string;
}

export class CreatedAssetResponse {
  @ApiProperty({ type: AssetResponse })
  asset: AssetResponse;

  @ApiProperty({ type: AssetUploadTarget })
  upload: AssetUploadTarget;
}

export class AssetContentUrlResponse {
  @ApiProperty({
    description:
      "Reads the asset's bytes like `GET /assets/{assetId}/content` (`Range`, `ETag`), with no other credential, until `expiresAt`",
    example:
      'https://api.example.com/asset-content/6650c0ffee0000000000e001.6650c0ffee0000000000a001.6650c0ffee0000000000b001.1795600000.W0DO3bWAolR-FllPAn3V-K-CZ3oL6vr-UQx8Y_aR7XA',
  })
  url: string;

  @ApiProperty({
    description: 'When the URL stops working (15 minutes after it was asked for)',
    example: '2026-11-26T09:45:00.000Z',
  })
  expiresAt: string;
}

export class AssetDeletedResponse {
  @ApiProperty({ example: 'Asset deleted' })
  message: string;
}

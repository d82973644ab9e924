import type { Asset } from './asset.schema';
import type { AssetResponse } from './dto/asset.response';

export function toAssetResponse(asset: Asset): AssetResponse {
  const id = String(asset._id);
  return {
    id,
    projectId: String(asset.contentProjectId),
    kind: asset.kind,
    title: asset.title,
    description: asset.description ?? null,
    fileName: asset.fileName,
    size: asset.size,
    mimeType: asset.mimeType,
    status: asset.status,
    error: asset.error ? { code: asset.error.code, message: asset.error.message } : null,
    sha256: asset.sha256 ?? null,
    contentType: asset.contentType ?? null,
    width: asset.width ?? null,
    height: asset.height ?? null,
    durationSeconds: asset.durationSeconds ?? null,
    thumbnailUrl: asset.hasThumbnail ? `/assets/${id}/thumbnail` : null,
    createdAt: new Date(asset.createdAt).toISOString(),
    updatedAt: new Date(asset.updatedAt).toISOString(),
  };
}

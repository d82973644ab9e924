import type { ProjectResponse } from './dto/project.response';
import type { Project } from './project.schema';

/** Every project field, unset optional text as `null` and unset lists as `[]`. */
export function toProjectResponse(project: Project): ProjectResponse {
  return {
    _id: String(project._id),
    channelId: String(project.channelId),
    parentId: project.parentId ? String(project.parentId) : null,
    projectTypeId: project.projectTypeId,
    subTypeId: project.subTypeId ?? null,
    primaryTitle: project.primaryTitle,
    description: project.description ?? null,
    portraitImg: project.portraitImg ?? null,
    landscapeImg: project.landscapeImg ?? null,
    contentUploadType: project.contentUploadType ?? null,
    access: project.access,
    status: project.status,
    primaryLanguageId: project.primaryLanguageId ?? null,
    categoryId: project.categoryId ?? null,
    subCategoryId: project.subCategoryId ?? null,
    topicIds: [...(project.topicIds ?? [])],
    supportedFormats: [...(project.supportedFormats ?? [])],
    supportedModes: [...(project.supportedModes ?? [])],
    supportedFeatures: [...(project.supportedFeatures ?? [])],
    createdAt: new Date(project.createdAt).toISOString(),
    updatedAt: new Date(project.updatedAt).toISOString(),
  };
}

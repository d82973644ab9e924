import type { PlatformProjectView } from './dto/platform-project.response';
import type { PlatformProject } from './platform-project.schema';

export function toPlatformProjectView(project: PlatformProject): PlatformProjectView {
  return {
    id: String(project._id),
    name: project.name,
    enabledApis: [...project.enabledApis],
    isDefault: project.isDefault,
    createdAt: new Date(project.createdAt).toISOString(),
    updatedAt: new Date(project.updatedAt).toISOString(),
  };
}

/**
 * OpenAPI links from a list of records that name content projects by `projectIds` (clients, a
 * client's channels) to the first record's first project: how a client, or a stateful tester, goes
 * from a client to its content without a channel id in hand. Not to the delete: the project is
 * every record's that names it.
 */
export const FIRST_CONTENT_PROJECT = {
  GetProject: { operationId: 'getProject', parameters: { projectId: '$response.body#/0/projectIds/0' } },
  UpdateProject: { operationId: 'updateProject', parameters: { projectId: '$response.body#/0/projectIds/0' } },
};

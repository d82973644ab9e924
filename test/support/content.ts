import { randomBytes } from 'node:crypto';
import type { HttpClient } from './http';

/**
 * A content project in the token's platform project (with the client and channel it needs), for
 * tests that name real project ids in a channel's or client's `projectIds`.
 */
export async function createContentProject(http: HttpClient, token: string): Promise<string> {
  const suffix = randomBytes(5).toString('hex');
  const client = await http.post(
    '/clients',
    { name: 'Project owner', email: `owner-${suffix}@example.com` },
    { token },
  );
  if (client.status !== 201) throw new Error(`client create failed: ${client.status} ${client.text}`);
  const channel = await http.post(
    '/channels',
    {
      clientId: client.body.id,
      name: 'Projects',
      username: `projects_${suffix}`,
      avatarUrl: 'https://cdn.example.com/a.png',
      role: 'creator',
    },
    { token },
  );
  if (channel.status !== 200) throw new Error(`channel create failed: ${channel.status} ${channel.text}`);
  const project = await http.post(
    `/channels/${channel.body.id}/projects`,
    { primaryTitle: 'Listed', projectTypeId: 'show' },
    { token },
  );
  if (project.status !== 201) throw new Error(`project create failed: ${project.status} ${project.text}`);
  return project.body._id;
}

import { randomBytes } from 'node:crypto';
import type { HttpClient } from './http';

export type Role = 'developer' | 'manager' | 'admin';

export interface TestUser {
  id: string;
  email: string;
  password: string;
  role: Role;
  token: string;
}

export function uniqueEmail(prefix = 'user'): string {
  return `${prefix}.${randomBytes(5).toString('hex')}@example.com`;
}

export function signupBody(overrides: Record<string, unknown> = {}) {
  return {
    firstName: 'Ada',
    lastName: 'Lovelace',
    email: uniqueEmail(),
    password: 'correct horse battery',
    role: 'developer',
    ...overrides,
  };
}

async function signupAndLogin(http: HttpClient, role: Role, adminToken?: string): Promise<TestUser> {
  const body = signupBody({ role, email: uniqueEmail(role) });
  const signup = await http.post('/api/v1/singup', body, { token: adminToken });
  if (signup.status !== 201) throw new Error(`signup as ${role} failed: ${signup.status} ${signup.text}`);
  const login = await http.post('/api/v1/login', { email: body.email, password: body.password });
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${login.text}`);
  return { id: signup.body.data.user.id, email: body.email as string, password: body.password as string, role, token: login.body.accessToken };
}

/**
 * The first user of an empty database may take any role, so the first call makes the admin.
 * Call it once per test app, before anything else signs up.
 */
export function createFirstAdmin(http: HttpClient): Promise<TestUser> {
  return signupAndLogin(http, 'admin');
}

/** Creates a user of any role; manager and admin need the admin's token. */
export function createUser(http: HttpClient, role: Role, adminToken?: string): Promise<TestUser> {
  return signupAndLogin(http, role, adminToken);
}

/** Admin, manager and developer of a fresh app, for role tests. */
export async function createStaff(http: HttpClient) {
  const admin = await createFirstAdmin(http);
  const manager = await createUser(http, 'manager', admin.token);
  const developer = await createUser(http, 'developer');
  return { admin, manager, developer };
}

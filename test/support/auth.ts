import { randomBytes } from 'node:crypto';
import type { HttpClient } from './http';
import { MailServer } from './mail-server';

export type Role = 'developer' | 'manager' | 'admin';

export interface TestUser {
  id: string;
  email: string;
  password: string;
  role: Role;
  token: string;
  /** The account the token acts in. */
  accountId: string;
  /** That account's default platform project. */
  projectId: string;
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

/** The account an access token acts in (its `acc` claim). */
export function tokenAccount(token: string): string {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')).acc;
}

export async function login(http: HttpClient, email: string, password: string, accountId?: string) {
  const res = await http.post('/api/v1/login', { email, password, ...(accountId ? { accountId } : {}) });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
  return res;
}

/**
 * Follows the verification link mailed at signup (read from the run's Mailpit), as a new user does:
 * unverified users can neither invite nor move money.
 */
export async function verifyEmail(http: HttpClient, email: string): Promise<void> {
  const token = await new MailServer().tokenFrom(email, /verify your email/i, '/verify-email');
  const res = await http.post(`/api/v1/email-verifications/${token}`, {});
  if (res.status !== 200) throw new Error(`email verification of ${email} failed: ${res.status} ${res.text}`);
}

/** A user who signed up and has not followed the verification link yet. */
export async function createUnverifiedOwner(http: HttpClient, role: Role = 'admin'): Promise<TestUser> {
  return signupAndLogin(http, signupBody({ role, email: uniqueEmail(role) }), role, false);
}

async function signupAndLogin(
  http: HttpClient,
  body: Record<string, unknown>,
  role: Role,
  verify = true,
): Promise<TestUser> {
  const signup = await http.post('/api/v1/singup', body);
  if (signup.status !== 201) throw new Error(`signup as ${role} failed: ${signup.status} ${signup.text}`);
  if (verify) await verifyEmail(http, body.email as string);
  const res = await login(http, body.email as string, body.password as string);
  return {
    id: signup.body.data.user.id,
    email: body.email as string,
    password: body.password as string,
    role,
    token: res.body.accessToken,
    accountId: signup.body.data.account.id,
    projectId: signup.body.data.account.defaultProjectId,
  };
}

/** Invites `email` into the admin's account with `role`; returns the invitation token. */
export async function invite(http: HttpClient, adminToken: string, email: string, role: Role): Promise<string> {
  const res = await http.post(
    `/api/v1/accounts/${tokenAccount(adminToken)}/invitations`,
    { email, role },
    { token: adminToken },
  );
  if (res.status !== 201) throw new Error(`invitation failed: ${res.status} ${res.text}`);
  return res.body.data.token;
}

/** A new user who owns a new account (and its default project), as admin. */
export function createFirstAdmin(http: HttpClient): Promise<TestUser> {
  return createOwner(http, 'admin');
}

/** A new user who owns a new account, with the given role recorded for them. */
export function createOwner(
  http: HttpClient,
  role: Role = 'admin',
  overrides: Record<string, unknown> = {},
): Promise<TestUser> {
  return signupAndLogin(http, signupBody({ role, email: uniqueEmail(role), ...overrides }), role);
}

/**
 * A user of the given role. With an admin's token they are invited into that admin's account (and
 * share its default project); without one they own an account of their own.
 */
export async function createUser(http: HttpClient, role: Role, adminToken?: string): Promise<TestUser> {
  if (!adminToken) return createOwner(http, role);
  const email = uniqueEmail(role);
  const invitationToken = await invite(http, adminToken, email, role);
  const body = signupBody({ email, invitationToken });
  delete (body as Record<string, unknown>).role;
  return signupAndLogin(http, body, role);
}

/** Admin (the owner), manager and developer of one account, for role tests. */
export async function createStaff(http: HttpClient) {
  const admin = await createFirstAdmin(http);
  const manager = await createUser(http, 'manager', admin.token);
  const developer = await createUser(http, 'developer', admin.token);
  return { admin, manager, developer };
}

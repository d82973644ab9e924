import { JwtService } from '@nestjs/jwt';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { accessTable, TABLE_END, TABLE_START } from '../../src/access/access-table';
import {
  declaredRoutes,
  type AccessPolicy,
  type ChannelRequirement,
  type ChannelRoleName,
  type CredentialKind,
  CREDENTIAL_KINDS,
  type DeclaredRoute,
} from '../../src/access/policy/access-policy';
import { EMAIL_UNVERIFIED, SESSION_REQUIRED } from '../../src/access/access.guard';
import { INVALID_API_KEY, ORIGIN_REFUSED } from '../../src/access/authentication';
import {
  KEYS_CANNOT_MANAGE,
  PROJECT_NOT_FOUND,
  PUBLISHABLE_KEYS_VIEW_ONLY,
  VIEWER_ROUTES_NEED_PUBLISHABLE_KEY,
} from '../../src/access/tenancy';
import type { UserRole } from '../../src/common/decorators/roles.decorator';
import { createUnverifiedOwner, createUser, login, type Role, type TestUser } from '../support/auth';
import type { HttpResponse, RequestOptions } from '../support/http';
import { enableTotp, sessionCookie, signIn } from '../support/sessions';
import { createTestApp, TEST_JWT_SECRET, type TestApp } from '../support/test-app';

/**
 * The access matrix, generated from the OpenAPI document and the routes' declared policies
 * (`declaredRoutes()`, filled by `@Access()`): every operation is called with every kind of
 * credential, and, where its policy asks for them, every account role, every channel role (and
 * none) in a channel of the project (where the role follows from the record or a move's destination in
 * the body: a top-level project and a sub-project, edited, moved within the channel and to another,
 * and the record named by another account's admin), a stale token on step-up
 * routes, a password-only caller in an account that requires a second factor, a project of another
 * account, and an unverified user. Each row's expected answer is derived from the policy and the
 * contract (401 without a valid credential, 403 for a credential of another kind or a role, a step-up
 * or a factor missing, 404 for another tenant's project), and only the access outcome is asserted:
 * a refusal by the access guard (its status and message), or "got past it" (any answer that is no
 * such refusal). A 500 anywhere fails. The functional answers are the other suites' business.
 */

/** `hidden`: the route's own 404 (not the guard's), as another account's record answers. */
type Outcome = 'past' | 401 | 403 | 404 | 'hidden';
type Operation = { operationId: string };
type Endpoint = { path: string; method: string; operationId: string };
/** A channel's fixture: a top-level project with an asset and a sub-project, and a second top-level project. */
type Channel = { channelId: string; projectId: string; childId: string; siblingId: string; assetId: string };
type ChannelRoleOrNone = ChannelRoleName | 'none';

/** One way a channel role's rows call a route: which project the parameter names, and the body. */
interface ChannelCase {
  readonly label: string;
  readonly target: 'root' | 'child';
  /** The body sent, from the fixture and the destination channels (the twin, where each collaborator holds the same role, and a bare one). */
  readonly body?: (channel: Channel, twin: string, bare: string) => Record<string, unknown>;
  /** The caller's role in the destination, when it differs from theirs in the channel. */
  readonly there?: ChannelRoleOrNone;
}

interface Row {
  readonly label: string;
  /** Fixed, or derived from the channel fixture the row acts on (a derived channel role reads the record). */
  readonly expected: Outcome | ((channel: Channel) => Outcome);
  /** Whose account and platform project the path names: the unverified user's, the mfa account's member's, else the owner's (and an unknown account). */
  readonly ids?: 'unverified' | 'mfa';
  /** The channel (and a content project of it) the route's channel parameter names: one whose collaborators hold each role. */
  readonly channel?: () => Promise<Channel>;
  /** Which of the fixture's projects the channel parameter names, when not its top-level project. */
  readonly target?: 'root' | 'child';
  readonly body?: (channel: Channel) => Record<string, unknown>;
  readonly options: () => Promise<RequestOptions>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const UNKNOWN_ID = '6650c0ffee00000000000bad';
const ACCOUNT_ROLES: readonly Role[] = ['admin', 'manager', 'developer'];
const CHANNEL_ROLES: readonly ChannelRoleName[] = ['owner', 'manager', 'editor', 'viewer'];
const CHANNEL_RANK: Record<ChannelRoleOrNone, number> = { owner: 4, manager: 3, editor: 2, viewer: 1, none: 0 };

/** The guard's own refusals: a 401 or a 403 that is one of these is an access outcome; any other answer got past access. */
const REFUSALS_401 = [
  /^Missing bearer token/,
  /^Invalid or expired token$/,
  new RegExp(`^${INVALID_API_KEY}$`),
  /^The session has ended/,
  /^This token was issued before/,
];
const REFUSALS_403_MESSAGES = [
  KEYS_CANNOT_MANAGE,
  PUBLISHABLE_KEYS_VIEW_ONLY,
  VIEWER_ROUTES_NEED_PUBLISHABLE_KEY,
  SESSION_REQUIRED,
  ORIGIN_REFUSED,
  EMAIL_UNVERIFIED,
];
const REFUSALS_403_PATTERNS = [
  /^This operation needs the role /,
  /^The \w+ API is not enabled for this project$/,
  /^This API key's scopes do not include/,
];
const REFUSAL_CODES = ['step_up_required', 'mfa_required', 'email_unverified', 'channel_role_required'];

function outcomeOf(res: HttpResponse): Outcome {
  const message = typeof res.body?.message === 'string' ? res.body.message : '';
  if (res.status === 401 && REFUSALS_401.some((pattern) => pattern.test(message))) return 401;
  if (
    res.status === 403 &&
    (REFUSAL_CODES.includes(res.body?.code) ||
      REFUSALS_403_MESSAGES.includes(message) ||
      REFUSALS_403_PATTERNS.some((p) => p.test(message)))
  ) {
    return 403;
  }
  if (res.status === 404 && message === PROJECT_NOT_FOUND) return 404;
  return 'past';
}

function operationsOf(document: { paths: Record<string, Record<string, Operation>> }): Endpoint[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({ path, method, operationId: item[method].operationId })),
  );
}

/** Whether Swagger leaves the route's controller out of the document (the tus upload endpoints). */
function documented(route: DeclaredRoute): boolean {
  return !Reflect.getMetadata('swagger/apiExcludeController', route.type);
}

const passes = (policy: AccessPolicy, kind: CredentialKind): boolean => policy.credentials.includes(kind);
const roleAllows = (policy: AccessPolicy, role: UserRole): boolean =>
  !policy.roles?.length || policy.roles.includes(role);

/**
 * The cases of a channel role: one for a fixed role; for a derived one or a destination, a top-level
 * project and a sub-project, each as it is (no body), moved under another top-level project of the
 * channel, and moved to another channel, where the role in the destination is asked too.
 */
function channelCases(requirement: ChannelRequirement): ChannelCase[] {
  if (typeof requirement.role === 'string' && !requirement.destination) return [{ label: '', target: 'root' }];
  const cases: ChannelCase[] = [];
  for (const target of ['root', 'child'] as const) {
    const what = target === 'root' ? 'a top-level project' : 'a sub-project';
    cases.push({ label: `, ${what}`, target });
    const destination = requirement.destination;
    if (!destination) continue;
    cases.push({
      label: `, ${what} moved under another in its channel`,
      target,
      body: (channel) => ({ parentId: channel.siblingId }),
    });
    cases.push({
      label: `, ${what} moved to another channel`,
      target,
      body: (_channel, twin) => ({ [destination.field]: twin }),
    });
    cases.push({
      label: `, ${what} moved to a channel where the caller has no role`,
      target,
      body: (_channel, _twin, bare) => ({ [destination.field]: bare }),
      there: 'none',
    });
  }
  return cases;
}

/**
 * What a channel role's row expects, from the declaration alone: the role it asks of the record and
 * the body (past when it knows no such record), and, when the body names another channel, the
 * destination's role there.
 */
function channelOutcome(
  requirement: ChannelRequirement,
  channel: Channel,
  target: 'root' | 'child',
  body: Record<string, unknown>,
  here: ChannelRoleOrNone,
  there: ChannelRoleOrNone,
): Outcome {
  const place = {
    channelId: channel.channelId,
    parentId: target === 'child' ? channel.projectId : null,
    deleting: false,
  };
  const needed = typeof requirement.role === 'string' ? requirement.role : requirement.role.of({ ...place, body });
  if (needed === null) return 'past';
  if (CHANNEL_RANK[here] < CHANNEL_RANK[needed]) return 403;
  const destination = requirement.destination;
  const moving =
    destination && typeof body[destination.field] === 'string' && body[destination.field] !== channel.channelId;
  return moving && CHANNEL_RANK[there] < CHANNEL_RANK[destination.role] ? 403 : 'past';
}

describe('route matrix: every operation x credential, role and assurance, from the declared policies', () => {
  let t: TestApp;
  let owner: TestUser;
  let members: Record<Role, TestUser>;
  let stranger: TestUser;
  let mfaMember: TestUser;
  let unverified: TestUser;
  let secretKey: string;
  let publishableKey: string;
  let staleToken: string;
  /** Developers of the owner's account, one per channel role they are given in every channel the matrix makes, and one with none. */
  let collaborators: Record<ChannelRoleName | 'none', TestUser>;
  let sharedChannel: Channel;
  /** Where moves between channels go: the collaborators hold the same roles in `twinChannel`, none in `bareChannel`. */
  let twinChannel: Channel;
  let bareChannel: Channel;
  let document: { paths: Record<string, Record<string, Operation>> };
  const byHandler = new Map<string, DeclaredRoute>();

  beforeAll(async () => {
    t = await createTestApp();
    document = JSON.parse(readFileSync(join(__dirname, '../../openapi.json'), 'utf8'));
    for (const route of declaredRoutes()) byHandler.set(route.handler, route);
    owner = await createUser(t.http, 'admin');
    members = {
      admin: await createUser(t.http, 'admin', owner.token),
      manager: await createUser(t.http, 'manager', owner.token),
      developer: await createUser(t.http, 'developer', owner.token),
    };
    stranger = await createUser(t.http, 'admin');
    unverified = await createUnverifiedOwner(t.http);
    const key = async (kind: 'secret' | 'publishable') => {
      const res = await t.http.post(
        `/api/v1/platform/projects/${owner.projectId}/keys`,
        { name: `matrix ${kind}`, kind },
        { token: owner.token },
      );
      if (res.status !== 201) throw new Error(`key: ${res.status} ${res.text}`);
      return res.body.data.key as string;
    };
    secretKey = await key('secret');
    publishableKey = await key('publishable');
    // An account that requires a second factor, and a member of it who signed in with a password only.
    const mfaOwner = await createUser(t.http, 'admin');
    mfaMember = await createUser(t.http, 'developer', mfaOwner.token);
    const browser = await signIn(t.http, mfaOwner);
    await enableTotp(browser);
    const required = await browser.patch(`/api/v1/accounts/${mfaOwner.accountId}`, { requireMfa: true });
    if (required.status !== 200) throw new Error(`requireMfa: ${required.status} ${required.text}`);
    // A token of the owner's, valid, that proved its password two hours ago: stale for a step-up.
    const twoHoursAgo = Date.now() - 2 * 60 * 60 * 1000;
    collaborators = {
      owner: await createUser(t.http, 'developer', owner.token),
      manager: await createUser(t.http, 'developer', owner.token),
      editor: await createUser(t.http, 'developer', owner.token),
      viewer: await createUser(t.http, 'developer', owner.token),
      none: await createUser(t.http, 'developer', owner.token),
    };
    sharedChannel = await channelWithCollaborators();
    twinChannel = await channelWithCollaborators();
    bareChannel = await channelWithCollaborators(true);
    staleToken = new JwtService({ secret: TEST_JWT_SECRET }).sign(
      { sub: owner.id, acc: owner.accountId, asr: 'password', ims: twoHoursAgo },
      { expiresIn: 3600 },
    );
  }, 180_000);

  afterAll(async () => {
    await t?.close();
  });

  /** A channel of the owner's project, with content projects, whose collaborators hold each role (none when `bare`). */
  async function channelWithCollaborators(bare = false): Promise<Channel> {
    const suffix = randomBytes(5).toString('hex');
    const client = await t.http.post(
      '/clients',
      { name: 'Matrix', email: `matrix-${suffix}@example.com` },
      { token: owner.token },
    );
    const channel = await t.http.post(
      '/channels',
      {
        clientId: client.body.id,
        name: 'Matrix',
        username: `matrix_${suffix}`,
        avatarUrl: 'https://cdn.example.com/a.png',
        role: 'creator',
      },
      { token: owner.token },
    );
    if (channel.status !== 200) throw new Error(`channel: ${channel.status} ${channel.text}`);
    for (const role of bare ? [] : CHANNEL_ROLES) {
      const added = await t.http.post(
        `/channels/${channel.body.id}/collaborators`,
        { userId: collaborators[role].id, role },
        { token: owner.token },
      );
      if (added.status !== 201) throw new Error(`collaborator: ${added.status} ${added.text}`);
    }
    const project = await t.http.post(
      `/channels/${channel.body.id}/projects`,
      { primaryTitle: 'Matrix', projectTypeId: 'show' },
      { token: owner.token },
    );
    if (project.status !== 201) throw new Error(`project: ${project.status} ${project.text}`);
    const asset = await t.http.post(
      `/projects/${project.body._id}/assets`,
      { kind: 'text', title: 'Matrix', fileName: 'matrix.txt', size: 5, mimeType: 'text/plain' },
      { token: owner.token },
    );
    if (asset.status !== 201) throw new Error(`asset: ${asset.status} ${asset.text}`);
    const child = await t.http.post(
      `/channels/${channel.body.id}/projects`,
      { primaryTitle: 'Matrix child', projectTypeId: 'show', parentId: project.body._id },
      { token: owner.token },
    );
    if (child.status !== 201) throw new Error(`sub-project: ${child.status} ${child.text}`);
    const sibling = await t.http.post(
      `/channels/${channel.body.id}/projects`,
      { primaryTitle: 'Matrix sibling', projectTypeId: 'show' },
      { token: owner.token },
    );
    if (sibling.status !== 201) throw new Error(`sibling: ${sibling.status} ${sibling.text}`);
    return {
      channelId: channel.body.id as string,
      projectId: project.body._id as string,
      childId: child.body._id as string,
      siblingId: sibling.body._id as string,
      assetId: asset.body.asset.id as string,
    };
  }

  /** A fresh owner's token (a step-up counts from the login) and a fresh session: earlier rows may have signed either out. */
  async function ownerToken(): Promise<string> {
    return (await login(t.http, owner.email, owner.password)).body.accessToken as string;
  }
  async function ownerSession(): Promise<RequestOptions> {
    const res = await t.http.post('/api/v1/sessions', { email: owner.email, password: owner.password });
    const cookie = sessionCookie(res);
    if (!cookie) throw new Error(`sign-in: ${res.status} ${res.text}`);
    return { headers: { cookie, origin: t.baseUrl } };
  }

  /** The rows of one operation: one per credential kind, then the roles and assurances its policy names. */
  function rowsOf(policy: AccessPolicy, method: string): Row[] {
    const open = policy.scope === 'none';
    const outcome = (kind: CredentialKind): Outcome => (open ? 'past' : passes(policy, kind) ? 'past' : 403);
    const rows: Row[] = [
      { label: 'no credential', expected: open ? 'past' : 401, options: async () => ({}) },
      {
        label: 'an invalid bearer token',
        expected: open ? 'past' : 401,
        options: async () => ({ token: 'eyJhbGciOiJIUzI1NiJ9.e30.forged' }),
      },
    ];
    for (const kind of CREDENTIAL_KINDS) {
      switch (kind) {
        case 'anyone':
          break;
        case 'session':
          rows.push({ label: 'session (owner)', expected: outcome(kind), options: ownerSession });
          break;
        case 'userToken':
          rows.push({
            label: 'user token (owner)',
            expected: outcome(kind),
            options: async () => ({ token: await ownerToken() }),
          });
          break;
        case 'secretKey':
          rows.push({ label: 'secret key', expected: outcome(kind), options: async () => ({ token: secretKey }) });
          break;
        case 'publishableKey':
          rows.push({
            label: 'publishable key',
            expected: outcome(kind),
            options: async () => ({ token: publishableKey }),
          });
          break;
        // Beside a publishable key they open more; alone they are no credential.
        case 'viewerToken':
          rows.push({
            label: 'X-Viewer-Token alone',
            expected: open ? 'past' : 401,
            options: async () => ({ headers: { 'x-viewer-token': owner.token } }),
          });
          break;
        case 'shareToken':
          rows.push({
            label: 'X-Share-Token alone',
            expected: open ? 'past' : 401,
            options: async () => ({ headers: { 'x-share-token': 'shr_matrix' } }),
          });
          break;
        // A URL's token opens only its own route: as a bearer token it is none.
        case 'signedUrl':
        case 'uploadUrl':
          rows.push({
            label: `${kind} token as bearer`,
            expected: open ? 'past' : 401,
            options: async () => ({ token: `${UNKNOWN_ID}.${kind}` }),
          });
          break;
      }
    }
    if (open) return rows;
    if (policy.roles?.length) {
      for (const role of ACCOUNT_ROLES) {
        rows.push({
          label: `role ${role}`,
          expected: roleAllows(policy, role) ? 'past' : 403,
          options: async () => ({
            token: (await login(t.http, members[role].email, members[role].password)).body.accessToken,
          }),
        });
      }
      rows.push({
        label: 'role owner',
        expected: roleAllows(policy, 'admin') ? 'past' : 403,
        options: async () => ({ token: await ownerToken() }),
      });
    }
    if (policy.channel) {
      const requirement = policy.channel;
      const derived = typeof requirement.role !== 'string' || requirement.destination !== undefined;
      // A row that gets past access may delete or move its record: such rows get a channel of their own.
      const channel =
        method === 'delete' || derived ? () => channelWithCollaborators() : () => Promise.resolve(sharedChannel);
      for (const variant of channelCases(requirement)) {
        const body = variant.body
          ? (fixture: Channel) => variant.body!(fixture, twinChannel.channelId, bareChannel.channelId)
          : undefined;
        for (const role of [...CHANNEL_ROLES, 'none'] as const) {
          rows.push({
            label: `channel role ${role}${variant.label}`,
            expected: (fixture) =>
              channelOutcome(requirement, fixture, variant.target, body?.(fixture) ?? {}, role, variant.there ?? role),
            channel,
            target: variant.target,
            body,
            options: async () => ({
              token: (await login(t.http, collaborators[role].email, collaborators[role].password)).body.accessToken,
            }),
          });
        }
      }
      if (derived) {
        rows.push({
          label: "another account's admin naming the record",
          expected: 'hidden',
          channel,
          options: async () => ({ token: (await login(t.http, stranger.email, stranger.password)).body.accessToken }),
        });
      }
    }
    if (policy.stepUp === true && passes(policy, 'userToken')) {
      rows.push({ label: 'stale token on a step-up', expected: 403, options: async () => ({ token: staleToken }) });
    }
    if (policy.assurance && passes(policy, 'userToken')) {
      rows.push({
        label: 'password only, in an account requiring mfa',
        expected: policy.assurance === 'accountMfa' ? 403 : 'past',
        ids: 'mfa',
        options: async () => ({ token: (await login(t.http, mfaMember.email, mfaMember.password)).body.accessToken }),
      });
    }
    if (policy.scope === 'project' || policy.scope === 'viewer') {
      const token = policy.scope === 'viewer' ? () => Promise.resolve(publishableKey) : ownerToken;
      rows.push({
        label: "another account's project",
        expected: 404,
        options: async () => ({ token: await token(), headers: { 'x-project-id': stranger.projectId } }),
      });
    }
    if (policy.verifiedEmail && passes(policy, 'userToken')) {
      rows.push({
        label: 'unverified email',
        expected: 403,
        ids: 'unverified',
        options: async () => ({ token: (await login(t.http, unverified.email, unverified.password)).body.accessToken }),
      });
    }
    return rows;
  }

  /**
   * The path with its parameters filled with unknown ids, so that a row that gets past access changes
   * nothing; but the caller's own account where a second factor is at stake (it is the account the
   * path names), and the caller's own platform project under `/api/v1/platform/projects/{id}`, whose
   * routes answer an unknown one as the guard answers another account's; `named` fills the others
   * (the channel of a channel role's rows).
   */
  function pathOf(endpoint: Endpoint, row: Row, named: Record<string, string>): string {
    const caller = row.ids === 'mfa' ? mfaMember : row.ids === 'unverified' ? unverified : owner;
    const account = row.ids ? caller.accountId : UNKNOWN_ID;
    return endpoint.path
      .replace(/^\/api\/v1\/platform\/projects\/\{id\}/, `/api/v1/platform/projects/${caller.projectId}`)
      .replace(/\{(\w+)\}/g, (_whole, name: string) => (name === 'accountId' ? account : (named[name] ?? UNKNOWN_ID)));
  }

  it('has a declared policy for every operation of the document, and every declared, documented route is in it', () => {
    const endpoints = operationsOf(document);
    const undeclared = endpoints
      .filter((endpoint) => !byHandler.has(endpoint.operationId))
      .map((endpoint) => endpoint.operationId);
    expect(undeclared).toEqual([]);
    const operationIds = new Set(endpoints.map((endpoint) => endpoint.operationId));
    const missing = declaredRoutes()
      .filter((route) => documented(route) && !operationIds.has(route.handler))
      .map((route) => `${route.controller}.${route.handler}`);
    expect(missing).toEqual([]);
  });

  it("docs/accounts-and-access.md carries the declarations' access table (npm run access:doc)", () => {
    const doc = readFileSync(join(__dirname, '../../docs/accounts-and-access.md'), 'utf8');
    const committed = doc.slice(doc.indexOf(TABLE_START) + TABLE_START.length, doc.indexOf(TABLE_END)).trim();
    expect(committed).toBe(accessTable(declaredRoutes()));
  });

  it('answers every row as its policy says', async () => {
    const mismatches: string[] = [];
    let count = 0;
    for (const endpoint of operationsOf(document)) {
      const route = byHandler.get(endpoint.operationId);
      if (!route) {
        mismatches.push(`${endpoint.operationId}: no rows (no declared policy)`);
        continue;
      }
      for (const row of rowsOf(route.policy, endpoint.method)) {
        const options = await row.options();
        const channel = row.channel ? await row.channel() : undefined;
        const requirement = route.policy.channel;
        const named =
          requirement && channel
            ? {
                [requirement.param]:
                  requirement.from === 'channel'
                    ? channel.channelId
                    : requirement.from === 'asset'
                      ? channel.assetId
                      : row.target === 'child'
                        ? channel.childId
                        : channel.projectId,
              }
            : {};
        const body =
          row.body && channel
            ? row.body(channel)
            : endpoint.method === 'get' || endpoint.method === 'delete'
              ? undefined
              : {};
        const expected = typeof row.expected === 'function' ? row.expected(channel!) : row.expected;
        const res = await t.http.request(endpoint.method.toUpperCase(), pathOf(endpoint, row, named), body, options);
        count += 1;
        const hidden = res.status === 404 && res.body?.message !== PROJECT_NOT_FOUND;
        const got = expected === 'hidden' && hidden ? 'hidden' : outcomeOf(res);
        if (res.status >= 500 || got !== expected) {
          mismatches.push(
            `${endpoint.method.toUpperCase()} ${endpoint.path} [${row.label}]: expected ${expected}, got ${res.status} ${res.text.slice(0, 160)}`,
          );
        }
      }
    }
    console.log(`route matrix: ${count} rows over ${operationsOf(document).length} operations`);
    expect(mismatches).toEqual([]);
    expect(count).toBeGreaterThan(operationsOf(document).length * 8);
  }, 900_000);
});

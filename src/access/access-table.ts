import type { AccessPolicy, ChannelRequirement, CredentialKind, DeclaredRoute } from './policy/access-policy';

/** How each credential is named to callers, in the order the table lists them. */
const CREDENTIALS: readonly [CredentialKind, string][] = [
  ['anyone', 'No credential'],
  ['session', 'Session cookie (`__Host-sid`; `sid` over plain http in development)'],
  ['userToken', "User's access token (`Authorization: Bearer eyJ...`)"],
  ['secretKey', 'Secret key (`sk_test_...`)'],
  ['publishableKey', 'Publishable key (`pk_test_...`)'],
  ['viewerToken', "User's access token in `X-Viewer-Token`, beside a publishable key"],
  ['shareToken', "Share link's token in `X-Share-Token`, beside a publishable key"],
  ['signedUrl', 'Signed asset URL (`/asset-content/...`)'],
  ['uploadUrl', 'One-time upload URL (`/uploads/...`)'],
];

function reachOf(policy: AccessPolicy): string {
  switch (policy.scope) {
    case 'none':
      return 'routes open to the URL alone';
    case 'user':
      return "the caller's own user, sessions, factors and accounts";
    case 'account':
      return 'the account: platform projects, API keys';
    case 'project':
      return `the ${policy.api} API of a platform project`;
    case 'viewer':
      return `the viewer routes of the ${policy.api} API`;
  }
}

function assuranceOf(policies: readonly AccessPolicy[]): string {
  const mfa = policies.filter((policy) => policy.assurance === 'accountMfa').length;
  if (policies.every((policy) => !policy.assurance)) return '-';
  if (mfa === policies.length) return 'a second factor where the account requires one';
  if (mfa === 0) return 'a password';
  return `a password; a second factor where the account requires one (${mfa} of ${policies.length})`;
}

/** A channel requirement in words: its role, derived or fixed, and the role a destination in the body needs. */
function channelRoleText(requirement: ChannelRequirement): string {
  const role =
    typeof requirement.role === 'string' ? `channel ${requirement.role} or above` : `channel ${requirement.role.says}`;
  const destination = requirement.destination;
  return destination ? `${role}, and ${destination.role} or above in the channel \`${destination.field}\` names` : role;
}

/** The routes' handler names (their OpenAPI operationIds), backquoted, sorted. */
const names = (routes: readonly DeclaredRoute[]): string =>
  routes
    .map((route) => `\`${route.handler}\``)
    .sort()
    .join(', ');

/**
 * The access policy as one Markdown table, generated from the declared routes: for each credential,
 * what it reaches, at which assurance, which of those routes are step-up actions and which need an
 * account role or a channel role. docs/accounts-and-access.md carries it between its markers (`npm run access:doc`);
 * the route matrix test fails while the committed table differs.
 */
export function accessTable(routes: readonly DeclaredRoute[]): string {
  // One row per reach and answer; credentials whose rows are the same share one.
  const rows = new Map<string, { labels: string[]; cells: string }>();
  for (const [kind, label] of CREDENTIALS) {
    const user = kind === 'session' || kind === 'userToken';
    const groups = new Map<string, DeclaredRoute[]>();
    for (const route of routes.filter((candidate) => candidate.policy.credentials.includes(kind))) {
      const reach = reachOf(route.policy);
      groups.set(reach, [...(groups.get(reach) ?? []), route]);
    }
    for (const [reach, group] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
      const byRole = new Map<string, DeclaredRoute[]>();
      for (const route of group.filter((candidate) => candidate.policy.roles?.length)) {
        const roles = route.policy.roles!.join(' or ');
        byRole.set(roles, [...(byRole.get(roles) ?? []), route]);
      }
      for (const route of group.filter((candidate) => candidate.policy.channel)) {
        const roles = channelRoleText(route.policy.channel!);
        byRole.set(roles, [...(byRole.get(roles) ?? []), route]);
      }
      const roleText = [...byRole].map(([roles, routesOfRole]) => `${roles}: ${names(routesOfRole)}`).join('; ');
      // Only a user proves factors, steps up and holds a role; a secret key acts as admin over its APIs.
      const cells = !user
        ? `${reach} | ${group.length} | - | - | ${kind === 'secretKey' ? 'acts as admin' : '-'}`
        : `${reach} | ${group.length} | ${assuranceOf(group.map((route) => route.policy))} | ${names(group.filter((route) => route.policy.stepUp !== undefined)) || '-'} | ${roleText || 'any'}`;
      const row = rows.get(cells) ?? { labels: [], cells };
      row.labels.push(label);
      rows.set(cells, row);
    }
  }
  const lines = [
    '| Credential | Reaches | Routes | Assurance | Step-up actions | Roles (account; channel, where a platform admin needs none) |',
    '|---|---|---|---|---|---|',
  ];
  for (const row of rows.values()) {
    const labels = row.labels.map((label, index) => (index === 0 ? label : label[0].toLowerCase() + label.slice(1)));
    lines.push(`| ${labels.join(', or ')} | ${row.cells} |`);
  }
  return lines.join('\n');
}

/** The markers around the generated table in docs/accounts-and-access.md. */
export const TABLE_START =
  "<!-- access table: generated by `npm run access:doc` from the routes' @Access declarations -->";
export const TABLE_END = '<!-- end of the access table -->';

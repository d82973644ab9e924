// @ts-check
/**
 * The dependency rules `npm run lint` checks (dependency-cruiser). A module is a folder directly
 * under src/; dependencies point from child to parent, so no two modules may reach each other,
 * however long the path between them. Unit specs are left out: a spec may compose modules to test them.
 */

/**
 * Known cycles, each a group of modules that still reach each other. A folder in a group may depend
 * on the other members of its group circularly, and on nothing else circularly; every module outside
 * a group may not be part of any cycle.
 */
const KNOWN_CYCLES = [
  // The guards of auth (email-verified.guard) are used by api-keys' and invitations' controllers,
  // and invitations use auth's login throttling (auth/attempts), while auth reads keys and
  // invitations to sign people in. Moving the guards out of auth (into the access policy) and the
  // throttling into a module of its own breaks it.
  ['auth', 'api-keys', 'invitations'],
  // accounts' routes use the `@StepUp()` decorator declared by sessions, which reads memberships
  // and accounts: moving the decorator to where the other access declarations live breaks it.
  ['accounts', 'sessions'],
];

const folder = (names) => `^src/(${names.join('|')})$`;
const grouped = KNOWN_CYCLES.flat();

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-module-cycle',
      comment: 'Modules (folders under src/) must not depend on each other in a cycle: a parent never imports its child.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/[^/]+$', pathNot: folder(grouped) },
      to: { path: '^src/[^/]+$', circular: true },
    },
    ...KNOWN_CYCLES.map((group) => ({
      name: 'no-module-cycle',
      comment: `A known cycle (${group.join(', ')}, see KNOWN_CYCLES) must not grow: no cycle through a module outside it.`,
      severity: 'error',
      scope: 'folder',
      from: { path: folder(group) },
      to: { path: '^src/[^/]+$', pathNot: folder(group), circular: true },
    })),
    {
      name: 'common-knows-no-feature',
      comment: 'src/common/ holds what every module may use (errors, pipes, paging, money, crypto): it imports no module of src/.',
      severity: 'error',
      from: { path: '^src/common/' },
      to: { path: '^src/', pathNot: '^src/common/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.spec\\.ts$' },
    tsConfig: { fileName: 'tsconfig.json' },
    // Type-only imports count: a type is as much a dependency as a value.
    tsPreCompilationDeps: true,
  },
};

// @ts-check
/**
 * The dependency rules `npm run lint` checks (dependency-cruiser). A module is a folder directly
 * under src/, or one of src/identity/ (users, passwords, factors, passkeys, email links, attempts);
 * the access guard's policy and tokens, which import no module, count apart from it. Dependencies
 * point from child to parent, so no two modules may reach each other, however long the path between
 * them. Unit specs are left out: a spec may compose modules to test them.
 */

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-module-cycle',
      comment:
        'Modules (folders under src/) must not depend on each other in a cycle: a parent never imports its child.',
      severity: 'error',
      scope: 'folder',
      // The identity modules and the access guard's policy and tokens are modules of their own, one folder down.
      from: { path: '^src/(identity/[^/]+|access/(policy|tokens)|[^/]+)$' },
      to: { path: '^src/(identity/[^/]+|access/(policy|tokens)|[^/]+)$', circular: true },
    },
    {
      name: 'common-knows-no-feature',
      comment:
        'src/common/ holds what every module may use (errors, pipes, paging, money, crypto): it imports no module of src/.',
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

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const { nodeVersionProblem } = createRequire(__filename)(join(ROOT, 'scripts', 'check-node.cjs')) as {
  nodeVersionProblem: (version: string, range: string) => string | null;
};
const packageJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  scripts: Record<string, string>;
};

describe('the Node.js version check (scripts/check-node.cjs)', () => {
  it('refuses an older Node.js with a message that names both versions and what to do', () => {
    const problem = nodeVersionProblem('20.11.0', '>=24.11');
    expect(problem).toContain('needs Node.js 24.11.0 or newer');
    expect(problem).toContain('this is Node.js 20.11.0');
    expect(problem).toContain('Install Node.js 24');
    expect(nodeVersionProblem('24.10.9', '>=24.11')).not.toBeNull();
  });

  it('lets the required version and newer ones through', () => {
    expect(nodeVersionProblem('24.11.0', '>=24.11')).toBeNull();
    expect(nodeVersionProblem('24.21.0', '>=24.11')).toBeNull();
    expect(nodeVersionProblem('25.0.0', '>=24.11')).toBeNull();
  });

  it("runs before npm start's and npm test's build, against package.json's engines", () => {
    expect(packageJson.scripts.prestart).toMatch(/^node scripts\/check-node\.cjs && /);
    expect(packageJson.scripts.pretest).toMatch(/^node scripts\/check-node\.cjs && /);
    // This test's own Node.js passes it.
    expect(() => execFileSync(process.execPath, [join(ROOT, 'scripts', 'check-node.cjs')])).not.toThrow();
    expect(nodeVersionProblem(process.versions.node, packageJson.engines.node)).toBeNull();
  });
});

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LAST_RESORT_GC, releaseStartUpMemory } from './release-start-up-memory';

/** The semi-space option production starts the service with. */
function productionSemiSpace(): string {
  const scripts = (
    JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  ).scripts;
  const option = /--max-semi-space-size=\d+/.exec(scripts['start:prod'] ?? '')?.[0];
  if (!option) throw new Error("package.json's start:prod sets no --max-semi-space-size");
  return option;
}

describe('releaseStartUpMemory', () => {
  it('runs one last-resort full collection when Node exposes gc()', () => {
    const gc = jest.fn();
    expect(releaseStartUpMemory(gc)).toBe(true);
    expect(gc.mock.calls).toEqual([[LAST_RESORT_GC]]);
  });

  it('does nothing without --expose-gc', () => {
    expect(releaseStartUpMemory(undefined)).toBe(false);
  });

  it("on this Node, those options shrink a young generation that start-up grew, and free the old one's garbage", () => {
    // A start-up in small: many objects that survive long enough to grow the young generation and be
    // promoted, then dropped. Run with production's semi-space limit (package.json's start:prod).
    const script = `
      const v8 = require('node:v8');
      const space = (name) => v8.getHeapSpaceStatistics().find((s) => s.space_name === name);
      let kept = [];
      for (let round = 0; round < 40; round += 1) for (let i = 0; i < 20000; i += 1) kept.push({ round, i, text: 'x' + i });
      kept = null;
      const before = { young: space('new_space').space_size, used: process.memoryUsage().heapUsed };
      gc(${JSON.stringify(LAST_RESORT_GC)});
      const after = { young: space('new_space').space_size, used: process.memoryUsage().heapUsed };
      process.stdout.write(JSON.stringify({ before, after }));`;
    const { before, after } = JSON.parse(
      execFileSync(process.execPath, [productionSemiSpace(), '--expose-gc', '-e', script], { encoding: 'utf8' }),
    ) as Record<'before' | 'after', { young: number; used: number }>;
    expect(after.young).toBeLessThan(before.young / 2);
    expect(after.used).toBeLessThan(before.used / 2);
  });
});

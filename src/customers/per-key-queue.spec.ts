import { PerKeyQueue } from './per-key-queue';

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('PerKeyQueue', () => {
  it('runs the tasks of one key one at a time, in call order', async () => {
    const queue = new PerKeyQueue();
    const log: string[] = [];
    const task = (name: string) => async () => {
      log.push(`start ${name}`);
      await tick();
      log.push(`end ${name}`);
      return name;
    };
    const results = await Promise.all([queue.run('a', task('1')), queue.run('a', task('2')), queue.run('a', task('3'))]);
    expect(results).toEqual(['1', '2', '3']);
    expect(log).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3']);
  });

  it('runs different keys side by side', async () => {
    const queue = new PerKeyQueue();
    const log: string[] = [];
    const task = (name: string) => async () => {
      log.push(`start ${name}`);
      await tick();
      log.push(`end ${name}`);
    };
    await Promise.all([queue.run('a', task('a')), queue.run('b', task('b'))]);
    expect(log.slice(0, 2).sort()).toEqual(['start a', 'start b']);
  });

  it('a failing task rejects its own call only, and the queue goes on and empties', async () => {
    const queue = new PerKeyQueue();
    const failing = queue.run('a', async () => {
      throw new Error('boom');
    });
    const next = queue.run('a', async () => 'next');
    await expect(failing).rejects.toThrow('boom');
    await expect(next).resolves.toBe('next');
    await tick();
    expect(queue.size).toBe(0);
  });
});

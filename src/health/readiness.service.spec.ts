import { Logger } from '@nestjs/common';
import type { Connection } from 'mongoose';
import { Readiness } from './readiness.service';

function deferred() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

function connectionWith(...builds: Promise<void>[]): Connection {
  const models = Object.fromEntries(builds.map((build, index) => [`Model${index}`, { init: () => build }]));
  return { models } as unknown as Connection;
}

describe('Readiness', () => {
  it('is not ready until every model has finished building its indexes', async () => {
    const first = deferred();
    const second = deferred();
    const readiness = new Readiness(connectionWith(first.promise, second.promise));
    const boot = readiness.onApplicationBootstrap();

    expect(readiness.state).toBe('building-indexes');
    first.resolve();
    await Promise.resolve();
    expect(readiness.state).toBe('building-indexes');
    second.resolve();
    await boot;
    expect(readiness.state).toBe('ready');
    expect(readiness.models).toBe(2);
  });

  it('stays not ready when an index build fails', async () => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const build = deferred();
    const readiness = new Readiness(connectionWith(Promise.resolve(), build.promise));
    const boot = readiness.onApplicationBootstrap();
    build.reject(new Error('E11000 duplicate key'));
    await boot;
    expect(readiness.state).toBe('index-build-failed');
  });

  it('turns not ready once shutdown begins, even if the build finishes after', async () => {
    const build = deferred();
    const readiness = new Readiness(connectionWith(build.promise));
    const boot = readiness.onApplicationBootstrap();
    readiness.beforeApplicationShutdown();
    build.resolve();
    await boot;
    expect(readiness.state).toBe('shutting-down');
  });
});

import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A library that only some requests or some configurations need, loaded the first time one of them
 * asks for it rather than when the service starts: an instance that never makes a thumbnail, sends
 * a mail or verifies a passkey never pays for those libraries' code and heap. The module that uses
 * the library keeps its holder; the type comes from the library (`typeof import('sharp')`), the
 * value from `require`, which loads ES modules too (the service is built as CommonJS) and which
 * Jest's module system resolves as it does static imports.
 *
 * A library the configuration requires (the S3 client when assets go to a bucket, Redis's client
 * with REDIS_URL) is loaded at start with `load()`, so a missing or broken install stops the start
 * with its name; `assertInstalled()` checks at start that a library is installed without loading it.
 */
export class LazyLibrary<T> {
  private value?: T;

  /**
   * `packageName` is the library; `modulePath`, when given, the service's own file that imports it
   * (an absolute path: `join(__dirname, 'file')`), loaded in its place.
   */
  constructor(
    readonly packageName: string,
    private readonly modulePath: string = packageName,
  ) {}

  /** The library, loaded now if no one asked for it before; a library that fails to load says which. */
  load(): T {
    if (this.value === undefined) {
      try {
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use on purpose (see the class comment)
        this.value = require(this.modulePath) as T;
      } catch (error) {
        throw new Error(`The library ${this.packageName} could not be loaded: ${(error as Error).message}`, {
          cause: error,
        });
      }
    }
    return this.value;
  }

  get loaded(): boolean {
    return this.value !== undefined;
  }

  /** Throws, naming the package, when it is not installed where this process looks for packages. */
  assertInstalled(): void {
    const name = this.packageName;
    const installed = (require.resolve.paths(name) ?? []).some((dir) => existsSync(join(dir, name, 'package.json')));
    if (!installed) throw new Error(`The library ${name} is not installed (npm ci installs it)`);
  }
}

import { join } from 'node:path';
import { LazyLibrary } from './lazy-library';

describe('LazyLibrary', () => {
  it('loads the library on the first call only, and hands the same module after', () => {
    const library = new LazyLibrary<typeof import('node:path')>('node:path');
    expect(library.loaded).toBe(false);
    const first = library.load();
    expect(library.loaded).toBe(true);
    expect(first.join('a', 'b')).toBe(join('a', 'b'));
    expect(library.load()).toBe(first);
  });

  it('loads the service file that imports the library in its place', () => {
    const library = new LazyLibrary<typeof import('./lazy-library')>('node:fs', join(__dirname, 'lazy-library'));
    expect(library.load().LazyLibrary).toBe(LazyLibrary);
  });

  it('names the library that failed to load, and tries again on the next call', () => {
    const library = new LazyLibrary('no-such-library-here');
    expect(() => library.load()).toThrow(/^The library no-such-library-here could not be loaded: /);
    expect(library.loaded).toBe(false);
    expect(() => library.load()).toThrow(/no-such-library-here/);
  });

  it('checks that a library is installed without loading it', () => {
    const installed = new LazyLibrary('sharp');
    expect(() => installed.assertInstalled()).not.toThrow();
    expect(installed.loaded).toBe(false);
    expect(() => new LazyLibrary('no-such-library-here').assertInstalled()).toThrow(
      'The library no-such-library-here is not installed (npm ci installs it)',
    );
  });
});

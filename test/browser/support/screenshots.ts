import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';

/** The committed references, one `<name>.png` each. */
export const REFERENCES = join(__dirname, '..', 'screenshots');
/** Where a mismatch leaves its actual and diff images (not committed). */
export const ARTIFACTS = join(__dirname, '..', '..', '..', 'test-artifacts');

/**
 * The tolerance, stated once. `PIXEL_THRESHOLD` is pixelmatch's per-pixel colour distance (0 to 1,
 * in YIQ space; 0.1 is its default and ignores anti-aliasing noise); a screenshot fails when more
 * than `MAX_DIFFERING_SHARE` of its pixels differ beyond that (0.5%: a moved column, a wrapped
 * label or a wider thumbnail is well above it; a glyph rendered one shade darker is below).
 */
export const PIXEL_THRESHOLD = 0.1;
export const MAX_DIFFERING_SHARE = 0.005;

/**
 * A page that differs from its reference is taken again, every `RETAKE_MS`, for up to `SETTLE_MS`
 * before the check fails: a list reads its records again on its own schedule, and a picture taken
 * just before its answer is drawn is not a changed look. A page whose look did change never comes
 * to match, so it fails all the same, later.
 */
export const SETTLE_MS = 5_000;
const RETAKE_MS = 250;

/**
 * Applied to the page while the screenshot is taken: no transition or animation (Mantine's
 * transitions are CSS ones), no blinking caret, no scrollbar that appears on one run and not another.
 */
const STILL_PAGE_CSS = `
  *, *::before, *::after { transition: none !important; animation: none !important; caret-color: transparent !important; }
  html { scrollbar-width: none; }
`;

/** Elements a page marks as showing a value that changes every run (ids, dates, generated emails). */
const DYNAMIC = '[data-dynamic]';

export interface ScreenshotOptions {
  /** More elements to paint over, beside every `[data-dynamic]` one: values that change from run to run. */
  mask?: Locator[];
  /** Where references are read and written; the committed folder unless a test says otherwise. */
  references?: string;
  /** Where a mismatch's actual and diff images go. */
  artifacts?: string;
  /** Write the reference from this screenshot whatever is there (as `UPDATE_SCREENSHOTS=1` does). */
  update?: boolean;
  /** How long a page that differs is taken again before the check fails (`SETTLE_MS` unless given). */
  settleMs?: number;
}

export interface Comparison {
  width: number;
  height: number;
  differing: number;
  share: number;
  diff: PNG;
}

/**
 * Compares two PNGs pixel by pixel. Images of different sizes are compared on the larger canvas,
 * the missing area counting as differing (a page that grew taller is a changed layout, not an error).
 */
export function comparePngs(reference: PNG, actual: PNG): Comparison {
  const width = Math.max(reference.width, actual.width);
  const height = Math.max(reference.height, actual.height);
  const expected = onCanvas(reference, width, height);
  const got = onCanvas(actual, width, height);
  const diff = new PNG({ width, height });
  const differing = pixelmatch(expected.data, got.data, diff.data, width, height, { threshold: PIXEL_THRESHOLD });
  return { width, height, differing, share: differing / (width * height), diff };
}

/** `image` on an opaque magenta canvas of `width` x `height` (no page paints that), or itself when it is that size. */
function onCanvas(image: PNG, width: number, height: number): PNG {
  if (image.width === width && image.height === height) return image;
  const canvas = new PNG({ width, height });
  for (let offset = 0; offset < canvas.data.length; offset += 4) canvas.data.set([255, 0, 255, 255], offset);
  PNG.bitblt(image, canvas, 0, 0, image.width, image.height, 0, 0);
  return canvas;
}

/**
 * Takes a full-page screenshot of `page` and compares it with the committed reference
 * `test/browser/screenshots/<name>.png`. Motion is off (reduced motion emulated, CSS transitions and
 * animations stopped, caret hidden) and every dynamic value is masked, so a run differs from the
 * reference only where the layout or the look changed.
 *
 * A missing reference is written (and the check passes), except in CI (`CI=true`), where it fails:
 * a reference is reviewed and committed, never made by the build. `UPDATE_SCREENSHOTS=1` rewrites
 * every reference a run takes. A page that differs is taken again until it matches, for up to
 * `SETTLE_MS`. On a mismatch the actual and diff images are written to
 * `test-artifacts/screenshot-<name>-actual.png` and `-diff.png`, and the check fails with the share
 * of pixels that differed.
 */
export async function expectScreenshot(page: Page, name: string, options: ScreenshotOptions = {}): Promise<void> {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) throw new Error(`screenshot name "${name}": lower-case words and dashes`);
  const references = options.references ?? REFERENCES;
  const artifacts = options.artifacts ?? ARTIFACTS;
  const referencePath = join(references, `${name}.png`);

  await page.emulateMedia({ reducedMotion: 'reduce' });
  // Web fonts and images settle before the picture, not during it.
  await page.evaluate(
    () => (globalThis as unknown as { document: { fonts: { ready: Promise<unknown> } } }).document.fonts.ready,
  );
  // The shell's header and sidebar are fixed: a full-page picture paints them where the window is
  // scrolled to, which depends on the control used last. From the top they are where a person sees them.
  await page.evaluate(() => (globalThis as unknown as { scrollTo: (x: number, y: number) => void }).scrollTo(0, 0));
  const take = () =>
    page.screenshot({
      fullPage: true,
      animations: 'disabled',
      caret: 'hide',
      style: STILL_PAGE_CSS,
      mask: [page.locator(DYNAMIC), ...(options.mask ?? [])],
      maskColor: '#FF00FF',
    });
  let shot = await take();

  const update = options.update || process.env.UPDATE_SCREENSHOTS === '1';
  if (update || !existsSync(referencePath)) {
    if (!update && process.env.CI === 'true') {
      throw new Error(
        `No reference screenshot ${name}.png: run the journey with UPDATE_SCREENSHOTS=1 and commit the reference`,
      );
    }
    mkdirSync(dirname(referencePath), { recursive: true });
    writeFileSync(referencePath, shot);
    return;
  }

  const reference = PNG.sync.read(readFileSync(referencePath));
  let comparison = comparePngs(reference, PNG.sync.read(shot));
  const deadline = Date.now() + (options.settleMs ?? SETTLE_MS);
  while (comparison.share > MAX_DIFFERING_SHARE && Date.now() < deadline) {
    await page.waitForTimeout(RETAKE_MS);
    const again = await take();
    // The same picture compares the same: only a page that changed is compared again.
    if (again.equals(shot)) continue;
    shot = again;
    comparison = comparePngs(reference, PNG.sync.read(shot));
  }
  if (comparison.share <= MAX_DIFFERING_SHARE) return;

  mkdirSync(artifacts, { recursive: true });
  const actualPath = join(artifacts, `screenshot-${name}-actual.png`);
  const diffPath = join(artifacts, `screenshot-${name}-diff.png`);
  writeFileSync(actualPath, shot);
  writeFileSync(diffPath, PNG.sync.write(comparison.diff));
  const percent = (share: number) => `${(share * 100).toFixed(2)}%`;
  throw new Error(
    `Screenshot ${name}: ${percent(comparison.share)} of the pixels differ (at most ${percent(MAX_DIFFERING_SHARE)} may)` +
      ` on ${comparison.width}x${comparison.height}; see ${actualPath} and ${diffPath}.` +
      ' If the change is intended, rerun with UPDATE_SCREENSHOTS=1 and commit the reference.',
  );
}

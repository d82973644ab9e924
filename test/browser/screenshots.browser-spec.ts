import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Browser, chromium, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { comparePngs, expectScreenshot, MAX_DIFFERING_SHARE } from './support/screenshots';

jest.setTimeout(60_000);

/** A page like the dashboard's lists: a heading, a grid of thumbnails, an id that changes each run. */
function gallery(id: string, extraCss = '', masked = true): string {
  const tiles = Array.from(
    { length: 12 },
    (_, index) => `<figure class="tile"><div class="thumb"></div><figcaption>Item ${index + 1}</figcaption></figure>`,
  ).join('');
  return `<!doctype html><html lang="en"><head><style>
    body { margin: 24px; font: 14px system-ui, sans-serif; }
    .grid { display: flex; flex-wrap: wrap; gap: 16px; }
    .tile { margin: 0; width: 160px; }
    .thumb { width: 160px; height: 90px; background: #4c6ef5; border-radius: 4px; transition: width 2s; }
    ${extraCss}
  </style></head><body>
    <h1>Assets</h1><p style="font-size: 160px; margin: 0"><code${masked ? ' data-dynamic' : ''}>${id}</code></p><div class="grid">${tiles}</div>
  </body></html>`;
}

/** A script for the page: its tiles wider than the gallery's until `ms` have passed, then as they are. */
function drawnAfter(ms: number): string {
  return `{
    const pending = document.createElement('style');
    pending.textContent = '.tile, .thumb { width: 200px; }';
    document.head.append(pending);
    setTimeout(() => pending.remove(), ${ms});
  }`;
}

/**
 * The screenshot check itself, on a page of its own (no service): the same page passes, a dynamic
 * value that is masked does not count, and a changed layout (a thumbnail widened by one CSS rule)
 * fails with the share that differed and leaves its actual and diff images.
 */
describe('screenshot comparison', () => {
  let browser: Browser;
  let page: Page;
  let references: string;
  let artifacts: string;
  const options = () => ({ references, artifacts });
  /** The gallery's reference written, then the same page with its tiles wider until `ms` have passed. */
  async function referenceThenDrawnAfter(ms: number): Promise<void> {
    await page.setContent(gallery('req_8f2a91'));
    await expectScreenshot(page, 'gallery', { ...options(), update: true });
    await page.evaluate(drawnAfter(ms));
  }

  beforeAll(async () => {
    // These tests say when a reference is written; a run that rewrites every reference must not.
    delete process.env.UPDATE_SCREENSHOTS;
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox', '--disable-gpu'],
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, colorScheme: 'light' });
    page = await context.newPage();
  });

  beforeEach(() => {
    references = mkdtempSync(join(tmpdir(), 'screenshot-references-'));
    artifacts = mkdtempSync(join(tmpdir(), 'screenshot-artifacts-'));
  });

  afterEach(() => {
    rmSync(references, { recursive: true, force: true });
    rmSync(artifacts, { recursive: true, force: true });
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('writes a missing reference, then passes on the same page with another masked id', async () => {
    await page.setContent(gallery('req_8f2a91'));
    await expectScreenshot(page, 'gallery', { ...options(), update: true });
    expect(existsSync(join(references, 'gallery.png'))).toBe(true);

    await page.setContent(gallery('req_c07d3e'));
    await expect(expectScreenshot(page, 'gallery', options())).resolves.toBeUndefined();
    expect(existsSync(join(artifacts, 'screenshot-gallery-diff.png'))).toBe(false);
  });

  it('takes a page that differs again, and passes once what it was still drawing is drawn', async () => {
    // The layout of a list whose answer is not drawn yet, then drawn a second later.
    await referenceThenDrawnAfter(1_000);
    const started = Date.now();
    await expect(expectScreenshot(page, 'gallery', options())).resolves.toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(existsSync(join(artifacts, 'screenshot-gallery-diff.png'))).toBe(false);
  });

  it('fails a page that does not come to match within the time it is given', async () => {
    await referenceThenDrawnAfter(3_000);
    await expect(expectScreenshot(page, 'gallery', { ...options(), settleMs: 1_000 })).rejects.toThrow(
      /of the pixels differ/,
    );
  });

  it('counts an unmasked id that changed: the mask is what lets the masked one pass', async () => {
    await page.setContent(gallery('req_8f2a91', '', false));
    await expectScreenshot(page, 'gallery', { ...options(), update: true });

    await page.setContent(gallery('req_c07d3e', '', false));
    await expect(expectScreenshot(page, 'gallery', options())).rejects.toThrow(/of the pixels differ/);
  });

  it('fails on a changed layout with the share that differed, and writes the actual and diff images', async () => {
    await page.setContent(gallery('req_8f2a91'));
    await expectScreenshot(page, 'gallery', { ...options(), update: true });

    await page.setContent(gallery('req_8f2a91', '.tile, .thumb { width: 200px; }'));
    await expect(expectScreenshot(page, 'gallery', options())).rejects.toThrow(
      /Screenshot gallery: \d+\.\d\d% of the pixels differ \(at most 0\.50% may\)/,
    );
    const actual = PNG.sync.read(readFileSync(join(artifacts, 'screenshot-gallery-actual.png')));
    const reference = PNG.sync.read(readFileSync(join(references, 'gallery.png')));
    expect(comparePngs(reference, actual).share).toBeGreaterThan(MAX_DIFFERING_SHARE);
    expect(existsSync(join(artifacts, 'screenshot-gallery-diff.png'))).toBe(true);
  });

  it('refuses to make a missing reference in CI', async () => {
    const ci = process.env.CI;
    process.env.CI = 'true';
    try {
      await page.setContent(gallery('req_8f2a91'));
      await expect(expectScreenshot(page, 'gallery', options())).rejects.toThrow(
        /No reference screenshot gallery\.png/,
      );
      expect(existsSync(join(references, 'gallery.png'))).toBe(false);
    } finally {
      if (ci === undefined) delete process.env.CI;
      else process.env.CI = ci;
    }
  });

  it('counts a page that grew taller as differing, not as an error', () => {
    const short = new PNG({ width: 10, height: 10 });
    const tall = new PNG({ width: 10, height: 20 });
    short.data.fill(255);
    tall.data.fill(255);
    expect(comparePngs(short, tall).share).toBeCloseTo(0.5);
    expect(comparePngs(short, short).differing).toBe(0);
  });
});

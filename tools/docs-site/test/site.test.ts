import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromiumAvailable } from '@kyc/test-support';
import { LinkChecker } from 'linkinator';
import { serve } from 'vitepress';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, type Browser, launchBrowser, seriousViolations } from './browser.ts';

// The site `pnpm run docs` built (tools/docs-site/dist), served as it would be published.

const siteRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(siteRoot, 'dist');
const root = join(siteRoot, '..', '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { repository: { url: string } };
const repository = manifest.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');

if (!existsSync(join(dist, 'index.html'))) {
  throw new Error(`${dist} has no site: run \`pnpm run docs\` first (\`pnpm run test:docs\` does both)`);
}

describe('links', () => {
  it('every internal link and anchor resolves; links to the repository name files that exist', async () => {
    const port = await freePort();
    const site = new RegExp(`^http://(127\\.0\\.0\\.1|localhost):${port}([/?#]|$)`);
    // Everything else is skipped: GitHub (checked below against the checkout), and the
    // loopback addresses the guides tell you to open (the sandbox's dashboard).
    const outside: string[] = [];
    const result = await new LinkChecker().check({
      path: dist,
      port,
      recurse: true,
      checkFragments: true,
      concurrency: 20,
      linksToSkip: async (link) => {
        if (site.test(link)) return false;
        outside.push(link);
        return true;
      },
    });
    const broken = result.links
      .filter((link) => link.state === 'BROKEN')
      .map((link) => `${link.url} (${link.status ?? 'no status'}) on ${link.parent}`);
    expect(broken, broken.join('\n')).toEqual([]);
    const pages = result.links.filter((link) => link.state === 'OK' && link.url.endsWith('.html'));
    expect(pages.length).toBeGreaterThan(30);

    // The guides' links to code beside docs/ point at GitHub (the site cannot check those
    // offline): each must name a file or folder of this repository.
    const prefix = new RegExp(`^${repository.replaceAll('.', '\\.')}/(?:blob|tree)/main/([^#?]+)`);
    const missing = [...new Set(outside)]
      .map((link) => prefix.exec(link)?.[1])
      .filter((path): path is string => path !== undefined && !existsSync(join(root, decodeURIComponent(path))));
    expect(missing).toEqual([]);
    expect(outside.some((link) => prefix.test(link))).toBe(true);
  });
});

describe('API reference', () => {
  // Each package's typedoc.json lists its entry points; one left out (the contracts' `openapi`
  // once was) has no page. A package with one entry gets one page, else a page per entry.
  const packages = readdirSync(join(root, 'packages'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(root, 'packages', entry.name, 'package.json')))
    .map((entry) => ({
      folder: entry.name,
      manifest: JSON.parse(readFileSync(join(root, 'packages', entry.name, 'package.json'), 'utf8')) as {
        private?: boolean;
        exports: Record<string, unknown>;
      },
    }))
    .filter(({ manifest }) => manifest.private !== true);

  it.each(packages)('has a page for every typed entry point of @kyc/$folder', ({ folder, manifest }) => {
    const typed = Object.entries(manifest.exports)
      .filter(([, target]) => typeof target === 'object' && target !== null && 'import' in target)
      .map(([subpath]) => subpath);
    const pages =
      typed.length === 1
        ? [`api/@kyc/${folder}.html`]
        : typed.map((subpath) => `api/@kyc/${folder}/${subpath === '.' ? 'index-1' : subpath.slice(2)}.html`);
    expect(typed.length).toBeGreaterThan(0);
    expect(pages.filter((page) => !existsSync(join(dist, page)))).toEqual([]);
  });

  it('documents @kyc/contracts/openapi', () => {
    const page = readFileSync(join(dist, 'api', '@kyc', 'contracts', 'openapi.html'), 'utf8');
    expect(page).toContain('buildOpenApiDocument');
  });
});

describe('favicon', () => {
  let server: Awaited<ReturnType<typeof serve>>;
  let origin = '';
  beforeAll(async () => {
    server = await serve({ root: siteRoot, port: 0 });
    if (server.server === undefined) throw new Error('the preview server did not start');
    if (!server.server.listening) await once(server.server, 'listening');
    origin = `http://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server?.server?.close();
  });

  // A browser asks for the icon a page names, and some for /favicon.ico whatever it names:
  // both must be served, or every page view logs a 404.
  it('every page names an icon the site serves, and /favicon.ico is served too', async () => {
    const pages = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.html'));
    expect(pages.length).toBeGreaterThan(30);
    const icons = new Set<string>();
    for (const page of pages) {
      const html = readFileSync(join(dist, page), 'utf8');
      const href = /<link rel="icon"[^>]*href="([^"]+)"/.exec(html)?.[1];
      expect(href, page).toBeDefined();
      icons.add(href ?? '');
    }
    for (const path of [...icons, '/favicon.ico']) {
      const response = await fetch(new URL(path, origin));
      expect(response.status, path).toBe(200);
      // What the file is, by its first bytes (the preview server sends no type for .ico).
      const bytes = new Uint8Array(await response.arrayBuffer());
      const isIco = bytes[0] === 0 && bytes[1] === 0 && bytes[2] === 1 && bytes[3] === 0;
      const isSvg = new TextDecoder().decode(bytes.subarray(0, 200)).startsWith('<svg');
      expect(path.endsWith('.ico') ? isIco : isSvg, path).toBe(true);
    }
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

describe.skipIf(!(await chromiumAvailable()))('in Chromium', () => {
  let server: Awaited<ReturnType<typeof serve>>;
  let origin = '';
  let browser: Browser;

  beforeAll(async () => {
    server = await serve({ root: siteRoot, port: 0 });
    if (server.server === undefined) throw new Error('the preview server did not start');
    if (!server.server.listening) await once(server.server, 'listening');
    origin = `http://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
    browser = await launchBrowser(origin);
  });
  afterAll(async () => {
    await browser?.close();
    server?.server?.close();
  });

  it('renders getting started with every code block of the guide visible, and passes axe', async () => {
    const { page } = browser;
    await page.goto(`${origin}/getting-started.html`);
    await expect(page.locator('.vp-doc h1').textContent()).resolves.toContain('Getting started');

    const source = readFileSync(join(root, 'docs', 'getting-started.md'), 'utf8');
    const fences = [...source.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].map((match) => match[1] ?? '');
    const blocks = page.locator('.vp-doc div[class*="language-"] pre');
    await expect(blocks.count()).resolves.toBe(fences.length);
    for (const [index, fence] of fences.entries()) {
      const block = blocks.nth(index);
      await block.scrollIntoViewIfNeeded();
      await expect(block.isVisible(), `code block ${index + 1}`).resolves.toBe(true);
      const firstLine = fence.split('\n').find((line) => line.trim() !== '') ?? '';
      await expect(block.textContent(), `code block ${index + 1}`).resolves.toContain(firstLine.trim());
    }

    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: `${ARTIFACTS}getting-started-desktop.png`, fullPage: true });

    await page.emulateMedia({ colorScheme: 'dark' });
    try {
      await page.reload();
      await page.locator('html.dark').waitFor({ state: 'attached' });
      expect(await seriousViolations(page), 'dark').toEqual([]);
    } finally {
      await page.emulateMedia({ colorScheme: 'light' });
    }
  });

  it('fits a 390 px phone without sideways scrolling', async () => {
    const { page } = browser;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${origin}/getting-started.html`);
      await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(390);
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: `${ARTIFACTS}getting-started-mobile.png`, fullPage: true });
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('finds "Auth Key" with the built-in search and opens a page about it', async () => {
    const { page } = browser;
    await page.goto(`${origin}/`);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('searchbox').fill('Auth Key');
    const results = page.locator('.VPLocalSearchBox .result');
    await results.first().waitFor();
    await expect(results.count()).resolves.toBeGreaterThan(0);
    await expect(results.first().textContent()).resolves.toMatch(/auth key/i);
    await page.screenshot({ path: `${ARTIFACTS}search-auth-key.png` });
    await results.first().click();
    await page.locator('.VPLocalSearchBox').waitFor({ state: 'detached' });
    await expect(page.locator('.vp-doc').textContent()).resolves.toMatch(/Auth Key/);
  });

  it('serves the home page and the API reference, accessibly', async () => {
    const { page } = browser;
    for (const path of ['/', '/api/@kyc/webhook-receiver/']) {
      await page.goto(`${origin}${path}`);
      await page.locator('.vp-doc h1').waitFor();
      expect(await seriousViolations(page), path).toEqual([]);
    }
    await page.screenshot({ path: `${ARTIFACTS}api-reference-desktop.png` });
  });

  it('asked for nothing beyond its own origin, and logged no error', () => {
    expect(browser.foreignRequests).toEqual([]);
    expect(browser.problems).toEqual([]);
  });
});

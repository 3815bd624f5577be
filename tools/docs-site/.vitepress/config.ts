import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type DefaultTheme, defineConfig } from 'vitepress';
import { repositoryLinks } from './repository-links.ts';
import { sidebarFromReadme } from './sidebar-from-readme.ts';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../../..');
const docs = join(root, 'docs');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  description: string;
  repository: { url: string };
};
// `git+https://github.com/o/r.git` → `https://github.com/o/r`
const repository = manifest.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');

// Where the site is served from: `/` locally and in the tests; the Pages workflow sets the
// project site's path (`/kyc-webhooks/`), which every asset URL must start with there.
const base = process.env.KYC_DOCS_BASE ?? '/';
// The icon the pages name, and favicon.ico for browsers that ask for it whatever a page says:
// without them every page view logged a 404.
const publicFiles = join(here, '..', 'public');

const apiSidebarFile = join(docs, 'api', 'typedoc-sidebar.json');
const apiSidebar: DefaultTheme.SidebarItem[] = existsSync(apiSidebarFile)
  ? (JSON.parse(readFileSync(apiSidebarFile, 'utf8')) as DefaultTheme.SidebarItem[])
  : [];

/**
 * One static site from docs/ (the guides, as GitHub shows them too) and docs/api/ (typedoc's
 * Markdown output, written by `pnpm run docs` just before). docs/README.md, the index GitHub
 * shows for the folder, is the home page.
 */
export default defineConfig({
  base,
  srcDir: '../../docs',
  outDir: 'dist',
  cacheDir: '../../node_modules/.cache/vitepress',
  title: 'KYC completion webhooks SDK',
  description: manifest.description,
  lang: 'en',
  cleanUrls: false,
  lastUpdated: false,
  head: [['link', { rel: 'icon', type: 'image/svg+xml', href: `${base}favicon.svg` }]],
  rewrites: { 'README.md': 'index.md' },
  // Every link between pages must resolve: the build fails on a dead one (anchors are checked
  // by the site's test, which VitePress does not do).
  ignoreDeadLinks: false,
  vite: {
    // The pages live in docs/, outside this package: what their compiled modules import (Vue,
    // VitePress) resolves from here, since pnpm keeps both out of the root's node_modules.
    plugins: [
      {
        name: 'kyc-docs-resolve-from-site',
        enforce: 'pre',
        resolveId(id, importer, options) {
          if (!importer?.startsWith(docs) || !/^(vue|vitepress)(\/|$)/.test(id)) return null;
          return this.resolve(id, join(here, 'config.ts'), { ...options, skipSelf: true });
        },
      },
    ],
  },
  markdown: {
    // Comments in the default themes (github-light / github-dark) miss WCAG AA contrast on the
    // code block background; these two keep the look and pass.
    theme: { light: 'github-light-high-contrast', dark: 'github-dark-default' },
    config: (md) => repositoryLinks(md, { repository, root, docsFolder: 'docs' }),
  },
  themeConfig: {
    nav: [
      { text: 'Getting started', link: '/getting-started' },
      { text: 'Guides', link: '/' },
      { text: 'API reference', link: '/api/' },
    ],
    sidebar: {
      '/api/': [{ text: 'API reference', link: '/api/', items: apiSidebar }],
      '/': sidebarFromReadme(join(docs, 'README.md')),
    },
    // Built into the site (MiniSearch): no service to call, works offline.
    search: { provider: 'local' },
    outline: { level: [2, 3] },
    socialLinks: [{ icon: 'github', link: repository }],
    footer: { message: 'Released under the MIT License.' },
  },
  // Files the guides link to that are not pages (the OpenAPI document, JSON Schemas, alert
  // rules, a dashboard) are copied beside the pages, so those links work on the site too.
  buildEnd(site) {
    for (const file of readdirSync(publicFiles)) copyFileSync(join(publicFiles, file), join(site.outDir, file));
    for (const file of readdirSync(site.srcDir, { recursive: true, encoding: 'utf8' })) {
      if (file.endsWith('.md') || file.split(sep).some((part) => part.startsWith('.'))) continue;
      const source = join(site.srcDir, file);
      if (!statSync(source).isFile()) continue;
      const target = join(site.outDir, file);
      mkdirSync(dirname(target), { recursive: true });
      copyFileSync(source, target);
    }
  },
});

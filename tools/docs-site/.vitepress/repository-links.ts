import { existsSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import type { MarkdownRenderer } from 'vitepress';

interface Options {
  /** `https://github.com/<owner>/<repo>` */
  readonly repository: string;
  /** The repository root on disk. */
  readonly root: string;
  /** The site's source folder, relative to the repository root. */
  readonly docsFolder: string;
}

/**
 * The guides link to code beside docs/ (`../examples/…`, `../packages/…/README.md`) and to
 * folders of data (`contract/schemas/`), which work where GitHub renders them but are not pages
 * of the site. On the site those links go to the same place on GitHub: `blob/main/…` for a file,
 * `tree/main/…` for a folder. Files inside docs/ that are not pages are copied beside the pages
 * (see `buildEnd` in config.ts), so their links stay local.
 */
export function repositoryLinks(md: MarkdownRenderer, { repository, root, docsFolder }: Options): void {
  md.core.ruler.push('repository-links', (state) => {
    const page = typeof state.env?.relativePath === 'string' ? state.env.relativePath : '';
    for (const block of state.tokens) {
      for (const token of block.children ?? []) {
        if (token.type !== 'link_open') continue;
        const href = token.attrGet('href');
        if (href === null || /^([a-z]+:|#|\/)/i.test(href)) continue;
        const [path = '', fragment] = href.split('#');
        const fromRoot = posix.normalize(posix.join(docsFolder, posix.dirname(page), path)).replace(/\/$/, '');
        const insideDocs = fromRoot === docsFolder || fromRoot.startsWith(`${docsFolder}/`);
        if (insideDocs && !isFolderWithoutPage(join(root, fromRoot))) continue;
        const kind = isFolder(join(root, fromRoot)) ? 'tree' : 'blob';
        const anchor = fragment === undefined ? '' : `#${fragment}`;
        token.attrSet('href', `${repository}/${kind}/main/${fromRoot}${anchor}`);
      }
    }
  });
}

function isFolder(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

function isFolderWithoutPage(path: string): boolean {
  return isFolder(path) && !existsSync(join(path, 'README.md')) && !existsSync(join(path, 'index.md'));
}

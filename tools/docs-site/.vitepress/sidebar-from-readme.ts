import { readFileSync } from 'node:fs';
import type { DefaultTheme } from 'vitepress';

/**
 * The guides' sidebar, read from docs/README.md: each `## Section` becomes a group, and each
 * list item that starts with a link to a page of docs/ becomes an entry. The README stays the one
 * list of guides, on GitHub and on the site alike.
 */
export function sidebarFromReadme(file: string): DefaultTheme.SidebarItem[] {
  const groups: DefaultTheme.SidebarItem[] = [{ text: 'Overview', items: [{ text: 'All guides', link: '/' }] }];
  let current: DefaultTheme.SidebarItem[] | undefined;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const heading = /^## (.+)$/.exec(line);
    if (heading?.[1]) {
      current = [];
      groups.push({ text: heading[1], items: current });
      continue;
    }
    const item = /^- \[([^\]]+)\]\(([\w./-]+)\.md(?:#[\w-]+)?\)/.exec(line);
    if (current && item?.[1] && item[2] && !item[2].startsWith('..')) {
      current.push({ text: item[1], link: `/${item[2]}` });
    }
  }
  return groups.filter((group) => (group.items?.length ?? 0) > 0);
}

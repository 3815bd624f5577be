import type { Theme } from 'vitepress';
import DefaultTheme from 'vitepress/theme';
import './accessible.css';

export default { extends: DefaultTheme } satisfies Theme;

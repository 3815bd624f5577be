import type { NextConfig } from 'next';

// Only what the workspace needs: the examples import TypeScript by its `.js` name (NodeNext), and
// a warning from a package fails the build, so that one a customer's `next build` would print
// (webpack's "Critical dependency: the request of a dependency is an expression", say) is caught here.
const config: NextConfig = {
  typescript: { tsconfigPath: 'tsconfig.next.json' },
  webpack(webpackConfig: { resolve: { extensionAlias?: Record<string, string[]> }; plugins: unknown[] }) {
    webpackConfig.resolve.extensionAlias = { '.js': ['.ts', '.js'] };
    webpackConfig.plugins.push(warningsFailTheBuild);
    return webpackConfig;
  },
};

interface Compilation {
  warnings: Error[];
  errors: Error[];
}
const warningsFailTheBuild = {
  apply(compiler: { hooks: { afterCompile: { tap(name: string, run: (compilation: Compilation) => void): void } } }) {
    compiler.hooks.afterCompile.tap('warnings-fail-the-build', (compilation) => {
      compilation.errors.push(...compilation.warnings);
      compilation.warnings.length = 0;
    });
  },
};

export default config;

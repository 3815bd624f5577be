import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { unpinnedUses } from '../src/action-pins.ts';
import { actionlint } from '../src/actionlint.ts';
import { ROOT, readManifest } from '../src/workspace.ts';

// The workflows cannot run here; actionlint checks what GitHub would check (syntax, expressions,
// the inputs of known actions, permissions), and the assertions below check what they promise.

const folder = join(ROOT, '.github', 'workflows');
const workflows = readdirSync(folder).filter((name) => /\.ya?ml$/.test(name));

interface Step {
  readonly uses?: string;
  readonly run?: string;
  readonly with?: Readonly<Record<string, unknown>>;
  readonly env?: Readonly<Record<string, unknown>>;
}
interface Job {
  readonly needs?: string | readonly string[];
  readonly environment?: { readonly name?: string };
  readonly uses?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly permissions?: Readonly<Record<string, string>>;
  readonly strategy?: { readonly matrix?: Readonly<Record<string, unknown>> };
  readonly services?: Readonly<Record<string, { readonly image: string }>>;
  readonly steps?: readonly Step[];
}
interface Workflow {
  readonly on: Readonly<Record<string, unknown>>;
  readonly jobs: Readonly<Record<string, Job>>;
}

const read = (name: string) => parse(readFileSync(join(folder, name), 'utf8')) as Workflow;

describe('actionlint', () => {
  it('finds mistakes (so a clean result means something)', async () => {
    const broken = [
      'on: push',
      'jobs:',
      '  test:',
      '    runs-on: ubuntu-24.04',
      '    steps:',
      '      - uses: actions/checkout@v4',
      '        with:',
      '          fetch-depht: 0',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, not a template
      '      - run: echo ${{ matrix.node }}',
    ].join('\n');
    const findings = await actionlint(broken, 'broken.yml');
    expect(findings.map((finding) => finding.kind).sort()).toEqual(['action', 'expression']);
  });

  it.each(workflows)('passes %s', async (name) => {
    const findings = await actionlint(readFileSync(join(folder, name), 'utf8'), `.github/workflows/${name}`);
    const report = findings.map((f) => `${name}:${f.line}:${f.column} ${f.message} [${f.kind}]`).join('\n');
    expect(findings, report).toEqual([]);
  });
});

describe('ci.yml', () => {
  const ci = read('ci.yml');
  const test = ci.jobs.test;
  if (test === undefined) throw new Error('ci.yml has no `test` job');
  const runs = (test.steps ?? []).flatMap((step) => (step.run ? [step.run.trim()] : []));

  it('runs on pushes to main and on pull requests, and when release.yml calls it', () => {
    expect(Object.keys(ci.on).sort()).toEqual(['pull_request', 'push', 'workflow_call']);
  });

  it('tests every Node line the packages support (engines.node)', () => {
    const engines = readManifest(ROOT).engines?.node ?? '';
    const majors = [...engines.matchAll(/(\d+)\.\d+\.\d+/g)].map((match) => Number(match[1]));
    expect(majors).toEqual([22, 24, 26]);
    expect(test.strategy?.matrix?.node).toEqual(majors);
  });

  it('runs the commands the README gives a newcomer, in its order', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const block = /## The two commands\n\n```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const commands = block
      .split('\n')
      .map((line) => line.replace(/#.*$/, '').trim())
      .filter(Boolean);
    expect(commands).toEqual(['pnpm install', 'pnpm demo', 'pnpm test']);
    const positions = commands.map((command) => runs.findIndex((run) => run.startsWith(command)));
    expect(
      positions.every((position) => position >= 0),
      runs.join('\n'),
    ).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it('gives the suites real Postgres and Redis, and makes a missing one fail the run', () => {
    expect(Object.keys(test.services ?? {}).sort()).toEqual(['postgres', 'redis']);
    const env = test.env ?? {};
    expect(env.KYC_REQUIRE_SERVICES).toBe('1');
    expect(env.KYC_TEST_POSTGRES_URL).toMatch(/^postgres:\/\/postgres@postgres:5432\/test$/);
    expect(env.KYC_TEST_REDIS_URL).toMatch(/^redis:\/\/redis:6379$/);
  });
});

describe('release.yml', () => {
  const release = read('release.yml');
  const job = release.jobs.release;
  if (job === undefined) throw new Error('release.yml has no `release` job');
  const changesets = job.steps?.find((step) => step.uses?.startsWith('changesets/action@'));
  const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
    .scripts;

  it('publishes only after the CI test job passed on the same commit', () => {
    expect(release.jobs.test?.uses).toBe('./.github/workflows/ci.yml');
    expect(job.needs).toBe('test');
  });

  it('runs on pushes to main only', () => {
    expect(release.on).toEqual({ push: { branches: ['main'] } });
  });

  it('may sign provenance with an OIDC token, push the version commit and open its pull request', () => {
    expect(job.permissions).toEqual({ contents: 'write', 'pull-requests': 'write', 'id-token': 'write' });
  });

  it('lets Changesets version (a pull request) or publish (with provenance) through the root scripts', () => {
    expect(changesets?.with?.version).toBe('pnpm run version-packages');
    expect(changesets?.with?.publish).toBe('pnpm run release');
    expect(changesets?.env?.NPM_CONFIG_PROVENANCE).toBe('true');
    expect(scripts['version-packages']).toMatch(/^changeset version\b/);
    expect(scripts.release).toMatch(/^pnpm run build && pnpm run api:check && changeset publish$/);
  });
});

describe('pages.yml', () => {
  const pages = read('pages.yml');
  const { test, build, deploy } = pages.jobs;
  const siteConfig = readFileSync(join(ROOT, 'tools', 'docs-site', '.vitepress', 'config.ts'), 'utf8');

  it('deploys the docs site only after the CI test job passed on the same commit', () => {
    expect(test?.uses).toBe('./.github/workflows/ci.yml');
    expect(build?.needs).toBe('test');
    expect(deploy?.needs).toBe('build');
    expect(Object.keys(pages.on).sort()).toEqual(['push', 'workflow_dispatch']);
  });

  it('builds what the test job builds, with the base the site config reads, and uploads its output folder', () => {
    const runs = (build?.steps ?? []).flatMap((step) => (step.run ? [step.run.trim()] : []));
    expect(runs).toContain('pnpm run build && pnpm run docs');
    const env = build?.steps?.find((step) => step.run?.includes('pnpm run docs'))?.env ?? {};
    expect(Object.keys(env)).toEqual(['KYC_DOCS_BASE']);
    expect(siteConfig).toContain('process.env.KYC_DOCS_BASE');
    const upload = build?.steps?.find((step) => step.uses?.startsWith('actions/upload-pages-artifact@'));
    expect(upload?.with?.path).toBe('tools/docs-site/dist');
    expect(siteConfig).toMatch(/outDir: 'dist'/);
  });

  it('deploys with only the permissions Pages needs, to the github-pages environment', () => {
    expect(pages.jobs.test?.permissions).toEqual({ contents: 'read' });
    expect(deploy?.permissions).toEqual({ pages: 'write', 'id-token': 'write' });
    expect(deploy?.environment?.name).toBe('github-pages');
    expect(deploy?.steps?.map((step) => step.uses?.split('@')[0])).toEqual(['actions/deploy-pages']);
  });
});

describe('action pins', () => {
  it.each(workflows)('%s pins every action to a commit SHA, its version in a comment', (name) => {
    expect(unpinnedUses(readFileSync(join(folder, name), 'utf8'))).toEqual([]);
  });

  it('the check finds a tag, a short SHA and a SHA without its version', () => {
    const planted = [
      '      - uses: actions/checkout@v6',
      '      - uses: actions/setup-node@2499707',
      '        uses: actions/upload-artifact@b7c566a772e6b6bfb58ed0dc250532a479d7789f',
      '      - uses: actions/checkout@d23441a48e516b6c34aea4fa41551a30e30af803 # v6.1.0',
      '    uses: ./.github/workflows/ci.yml',
    ].join('\n');
    expect(unpinnedUses(planted)).toEqual([
      'line 1: actions/checkout@v6',
      'line 2: actions/setup-node@2499707',
      'line 3: actions/upload-artifact@b7c566a772e6b6bfb58ed0dc250532a479d7789f',
    ]);
  });

  it('Dependabot keeps the pinned actions current', () => {
    const file = join(ROOT, '.github', 'dependabot.yml');
    expect(existsSync(file)).toBe(true);
    const config = parse(readFileSync(file, 'utf8')) as { updates: { 'package-ecosystem': string }[] };
    expect(config.updates.map((update) => update['package-ecosystem'])).toContain('github-actions');
  });
});

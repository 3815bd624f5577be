import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCUMENTED_AUDIT_DIR, writeDocumentedAuditLog } from '../src/documented-audit-log.ts';
import {
  type Background,
  type DocumentedLine,
  kindOf,
  linesOf,
  NOT_RUNNABLE,
  runLine,
  startLine,
} from '../src/documented-lines.ts';
import { installConsumer, packTarballs } from '../src/packed-consumer.ts';
import { publicPackages, ROOT } from '../src/workspace.ts';

// Outside a project that has the package, `npx <name>` fetches <name> from the registry: a bare
// unscoped name (`kyc-sandbox`, `kyc-audit`) that we never registered would run whoever's code
// was published under it. So the docs name the scoped package; this suite finds every npx line
// of the READMEs and docs, and runs each one as written in a fresh project that installed the
// packed tarballs: the sandbox started as documented, the commands that talk to it, the audit
// verifier on a log the documented receiver wrote. What cannot run as written is listed, with
// why, in NOT_RUNNABLE.

const tracked = execFileSync('git', ['ls-files', '*.md', 'packages/*/src/**', 'tools/*/src/**'], {
  cwd: ROOT,
  encoding: 'utf8',
})
  .split('\n')
  .filter((file) => file !== '' && !file.endsWith('CHANGELOG.md'));
const text = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const BARE_NPX = new RegExp(['np', 'x\\s+kyc-'].join(''));

/** Every documented command line that runs one of our CLIs through npx, as written. */
const documented: DocumentedLine[] = tracked
  .filter((file) => file.endsWith('.md'))
  .flatMap((file) =>
    text(file)
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter((line) => /^npx (@kyc\/sandbox|-p @kyc\/webhook-receiver kyc-audit)\b/.test(line))
      .map((line) => ({ file, line })),
  );
const offline = documented.filter(({ line }) => kindOf(line) === 'usage');

it('no README, doc or source file runs a bare unscoped `kyc-…` name through npx', () => {
  const hits = tracked.flatMap((file) =>
    text(file)
      .split('\n')
      .flatMap((line, index) => (BARE_NPX.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : [])),
  );
  expect(hits).toEqual([]);
});

it('the scoped commands name a package whose bin is the documented one', () => {
  const bins = Object.fromEntries(publicPackages().map((pkg) => [pkg.name, Object.keys(pkg.manifest.bin ?? {})]));
  // `npx @kyc/sandbox` runs the package's bin only when it has exactly one.
  expect(bins['@kyc/sandbox']).toEqual(['kyc-sandbox']);
  expect(bins['@kyc/webhook-receiver']).toContain('kyc-audit');
  expect(documented.length).toBeGreaterThanOrEqual(10);
  expect(offline.map(({ line }) => line).sort()).toEqual(
    expect.arrayContaining(['npx -p @kyc/webhook-receiver kyc-audit --help', 'npx @kyc/sandbox --help']),
  );
});

it('every documented line is either run below or listed as not runnable, with why', () => {
  const neither = documented.filter(({ line }) => kindOf(line) === undefined && NOT_RUNNABLE[line] === undefined);
  expect(neither).toEqual([]);
  expect(documented.filter(({ line }) => kindOf(line) !== undefined && NOT_RUNNABLE[line] !== undefined)).toEqual([]);
  // A listed line that no document has any more is a stale excuse.
  expect(Object.keys(NOT_RUNNABLE).filter((line) => !documented.some((doc) => doc.line === line))).toEqual([]);
  // The sandbox steps below run one sandbox, with one user.
  expect(linesOf(documented, 'start')).toHaveLength(1);
  expect(linesOf(documented, 'user-add')).toHaveLength(1);
});

const project = join(ROOT, '.tmp', 'release-checks', 'documented-commands', 'project');
beforeAll(async () => {
  await installConsumer(project, packTarballs(publicPackages(), join(project, '..', 'tarballs')));
}, 300_000);

it.each(offline)('$file: `$line` runs as written in a fresh project', ({ line }) => {
  const run = spawnSync('sh', ['-c', line], { cwd: project, encoding: 'utf8' });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  expect(run.stdout).toMatch(/^Usage/);
});

/**
 * The environment of every line: the reader's, but the saved login goes next to the project
 * (not into this machine's ~/.config) and no sandbox or key variable of the machine's leaks in.
 */
const env: NodeJS.ProcessEnv = {
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^KYC_|^DATABASE_URL$/.test(name))),
  KYC_SANDBOX_CONFIG: join(project, '..', 'kyc-sandbox-login.json'),
};
// What the reader types when `user add` reads the password on stdin (and `login` asks for it).
const PASSWORD = 'a sandbox password for the docs test';

describe('the sandbox, run as its documents show', () => {
  let sandbox: Background | undefined;
  const [userAdd = ''] = linesOf(documented, 'user-add');
  const user = userAdd.split(' ').at(-1) ?? '';

  afterAll(async () => {
    await sandbox?.stop();
  }, 30_000);

  it(`\`${userAdd}\` adds the user, the password on stdin`, () => {
    const run = runLine(userAdd, project, env, `${PASSWORD}\n`);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`user "${user}" added`);
  });

  it.each(linesOf(documented, 'start'))('`%s` serves until stopped, and is ready', async (line) => {
    // As written: a port the docs fix is used as is, and the test fails if it is taken.
    sandbox = startLine(line, project, env);
    const [, url] = await sandbox.waitFor(/KYC sandbox listening on (http\S+)/, 30_000);
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ ready: true });
  });

  it('listen forwards what trigger finishes, both as written', async () => {
    // The documented login names the reader's team's service; this is the same login to the
    // sandbox started above (the CLI's default service), the password on stdin as documented.
    const login = runLine(`npx @kyc/sandbox login --user ${user}`, project, env, `${PASSWORD}\n`);
    expect(login.stdout).toContain(`Logged in as ${user}`);
    expect(login.status).toBe(0);
    const listeners = linesOf(documented, 'listen').map((line) => startLine(line, project, env));
    try {
      for (const listener of listeners) await listener.waitFor(/^Ready! Forwarding .+ webhooks to http:\/\//m, 30_000);
      const events: string[] = [];
      for (const line of linesOf(documented, 'trigger')) {
        const run = runLine(line, project, env);
        expect(run.stderr, line).toBe('');
        expect(run.status, line).toBe(0);
        const status = line.split(' ')[3]?.toUpperCase() ?? '';
        expect(run.stdout, line).toMatch(new RegExp(`finished sess_\\w+ as ${status}\\b`));
        events.push(run.stdout.match(/webhook (evt_\w+)/)?.[1] ?? '');
      }
      expect(events.length).toBeGreaterThan(0);
      // The first delivery reaches each listener, which prints its line whatever answers at the
      // forward target (here nothing does: that line then says what the reader should fix).
      for (const listener of listeners) await listener.waitFor(new RegExp(`${events[0]}\\s+sess_\\w+`), 30_000);
    } finally {
      for (const listener of listeners) await listener.stop();
    }
  }, 120_000);
});

describe(`kyc-audit, on the log the documented receiver writes to ${DOCUMENTED_AUDIT_DIR}`, () => {
  let remove = () => {};
  beforeAll(() => {
    const log = writeDocumentedAuditLog(project, 3);
    remove = log.remove;
    // Three requests without the Auth Key: three 401s, and three entries all the same.
    expect(log.statuses).toEqual([401, 401, 401]);
  });
  afterAll(() => remove());

  it.each(linesOf(documented, 'audit-verify'))('`%s` finds the chain intact', (line) => {
    const run = runLine(line, project, env);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const head = run.stdout.match(/^intact: 3 entries.*; head (\d+:[0-9a-f]{64})$/m)?.[1];
    expect(head, run.stdout).toMatch(/^3:/);
    // The documented `--head` line with the head just printed in place of its elided one.
    const again = runLine(`${line} --head ${head}`, project, env);
    expect(again.status, again.stdout + again.stderr).toBe(0);
  });
});

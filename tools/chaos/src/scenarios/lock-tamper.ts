import { rmSync } from 'node:fs';
import { accountingFigures, runOwner } from '../support/owner-run.js';
import { pause } from '../support/pause.js';
import { Invariants, type RunContext, type Scenario } from '../support/scenario.js';
import { spawnScript } from '../support/spawn-script.js';

type Tampering = 'delete' | 'read' | 'copy' | 'stalled';
const TAMPERINGS: readonly Tampering[] = ['delete', 'read', 'copy', 'stalled'];

/**
 * The owner's side files tampered with under load: its lock file deleted; read once by the
 * owner's own process; the data folder copied by the owner's own process as a naive backup would.
 * A POSIX record lock drops when any descriptor of its file in the process closes (the copy drops
 * SQLite's own locks on the database and its shared memory too), and a deleted file takes its lock
 * along. The owner record (`<db>-owner`, a live process named in it) must refuse the second engine
 * in all three, before it opens the database: one that opened it after the copy reset the shared
 * memory under the owner (which died of SIGBUS, its sends in flight unrecorded) and, closing,
 * could delete the owner's write-ahead log. Fourth: both side files deleted while the owner is
 * stopped (SIGSTOP), so the second engine gets in; the fence in the file must stop the old owner
 * at its first commit after it resumes, and nothing may be sent twice (72, 72 and 77 events were,
 * before issue 32).
 */
export const lockTamper: Scenario = {
  name: 'lock-tamper',
  title: 'SQLite owner: lock file deleted, read or copied under a live owner, a second engine starts',
  breaks: ['no-fence', 'no-owner-record'],
  async run(context: RunContext) {
    const invariants = new Invariants();
    const figures: [string, string | number][] = [];
    for (const how of TAMPERINGS) {
      let admitted = false;
      let refusedSecond = false;
      const result = await runOwner({
        context: { ...context, dir: `${context.dir}/${how}` },
        invariants,
        events: context.mode === 'full' ? 3000 : 600,
        receiverDelayMs: 150,
        worker: how === 'read' || how === 'copy' ? { tamper: how } : {},
        breaks: {
          'no-fence': [
            {
              file: 'store/sqlite/take-over.ts',
              search: '    checkFence() {\n',
              replace: '    checkFence() {\n      if (lock.held) return;\n',
            },
          ],
          // The owner names a process that does not exist: its record says nothing.
          'no-owner-record': [
            {
              file: 'store/sqlite/owner-record.ts',
              search: '{ pid: process.pid, host: hostname()',
              replace: '{ pid: 2 ** 22 + 1, host: hostname()',
            },
          ],
        },
        async fault(run) {
          await pause(600);
          if (how === 'delete') rmSync(`${run.path}-lock`);
          else if (how === 'stalled') {
            run.owner.child.kill('SIGSTOP');
            rmSync(`${run.path}-lock`);
            rmSync(`${run.path}-owner`);
          } else {
            run.owner.child.kill('SIGUSR1');
            await run.owner.waitFor('tampered');
          }
          // The second engine delivers beside the old owner until nothing is pending.
          const second = spawnScript('engine-worker', { ...run.base, drain: true, maxLifeMs: 60_000 }, (line) => {
            if (line === 'started') admitted = true;
            if (line.startsWith('refused store_locked')) refusedSecond = true;
          });
          if (how === 'stalled') {
            // Stopped inside a commit, the owner holds the write lock the takeover waits for (up
            // to the 5 s busy timeout): it resumes after 3 s at the latest.
            await Promise.race([second.waitFor('started'), second.exited, pause(3000)]);
            run.owner.child.kill('SIGCONT');
          }
          const code = await second.exited;
          invariants.check(
            code === 0 || (code === 3 && refusedSecond),
            `${how}: the second engine failed`,
            () => `${code}: ${second.stderr().slice(-400)}`,
          );
        },
      });
      const fenced = result.ownerStderr.includes('another engine owns the store now');
      if (how === 'stalled') {
        invariants.check(admitted, 'stalled: no second engine could start: the scenario tested nothing');
        invariants.check(fenced, 'stalled: the old owner never said it was fenced off');
      } else {
        invariants.check(refusedSecond && !admitted, `${how}: a second engine started beside the live owner`);
        invariants.check(!fenced, `${how}: the owner was fenced off`);
      }
      const what = {
        delete: 'deleted',
        read: 'read by the owner',
        copy: 'copied with its folder by the owner',
        stalled: 'and owner record deleted while the owner was stopped',
      }[how];
      figures.push([
        `lock file ${what}`,
        `second engine ${admitted ? 'started' : 'refused'}; old owner ${fenced ? 'fenced off' : 'kept the file'}`,
      ]);
      for (const [label, value] of accountingFigures(result)) figures.push([`  ${label}`, value]);
    }
    return { figures, failures: invariants.failures };
  },
};

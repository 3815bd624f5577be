import { rmSync } from 'node:fs';
import { accountingFigures, runOwner } from '../support/owner-run.js';
import { pause } from '../support/pause.js';
import { Invariants, type RunContext, type Scenario } from '../support/scenario.js';
import { spawnScript } from '../support/spawn-script.js';

type Tampering = 'delete' | 'read' | 'copy';
const TAMPERINGS: readonly Tampering[] = ['delete', 'read', 'copy'];

/**
 * The owner's lock file tampered with under load: deleted; read once by the owner's own process;
 * the data folder copied by the owner's process as a naive backup would. A POSIX record lock drops
 * when any descriptor of its file in the process closes, and a deleted file takes its lock along,
 * so a second engine can start beside the live owner. The fence in the file must stop the old
 * owner at its next commit and the new one must hold what the old one had in flight: nothing sent
 * twice (72, 72 and 77 events were, before). A deleted lock file is noticed at the owner's next
 * commit, which locks a new one: the second engine is then refused, unless it got there first.
 */
export const lockTamper: Scenario = {
  name: 'lock-tamper',
  title: 'SQLite owner: lock file deleted, read or copied under a live owner, a second engine starts',
  breaks: ['no-fence'],
  async run(context: RunContext) {
    const invariants = new Invariants();
    const figures: [string, string | number][] = [];
    for (const how of TAMPERINGS) {
      let admitted = false;
      let refusedSecond = false;
      let fenced = false;
      const result = await runOwner({
        context: { ...context, dir: `${context.dir}/${how}` },
        invariants,
        events: context.mode === 'full' ? 3000 : 600,
        receiverDelayMs: 150,
        worker: how === 'delete' ? {} : { tamper: how },
        breaks: {
          'no-fence': [
            {
              file: 'store/sqlite/take-over.ts',
              search: '    checkFence() {\n',
              replace: '    checkFence() {\n      if (lock.held) return;\n',
            },
          ],
        },
        async fault(run) {
          await pause(600);
          if (how === 'delete') rmSync(`${run.path}-lock`);
          else {
            run.owner.child.kill('SIGUSR1');
            await run.owner.waitFor('tampered');
          }
          // The second engine delivers beside the old owner until nothing is pending.
          const second = spawnScript('engine-worker', { ...run.base, drain: true, maxLifeMs: 60_000 }, (line) => {
            if (line === 'started') admitted = true;
            if (line.startsWith('refused store_locked')) refusedSecond = true;
          });
          const code = await second.exited;
          invariants.check(
            code === 0 || (code === 3 && refusedSecond),
            `${how}: the second engine failed`,
            () => `${code}: ${second.stderr().slice(-400)}`,
          );
        },
      });
      fenced = result.ownerStderr.includes('another engine owns the store now');
      if (how === 'delete') {
        invariants.check(admitted === fenced, 'delete: a second engine ran beside an owner that was not fenced off');
      } else {
        invariants.check(admitted, `${how}: no second engine could start: the scenario tested nothing`);
        invariants.check(fenced, `${how}: the old owner never said it was fenced off`);
      }
      const what = { delete: 'deleted', read: 'read by the owner', copy: 'copied with its folder by the owner' }[how];
      figures.push([
        `lock file ${what}`,
        `second engine ${admitted ? 'started' : 'refused'}; old owner ${fenced ? 'fenced off' : 'kept the file (locked a new lock file)'}`,
      ]);
      for (const [label, value] of accountingFigures(result)) figures.push([`  ${label}`, value]);
    }
    return { figures, failures: invariants.failures };
  },
};

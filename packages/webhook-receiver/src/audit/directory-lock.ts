import { open, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes `<prefix>.lock` in the directory for this process: two writers on one directory would
 * fork the chain. A lock left by a process that no longer runs is taken over. Resolves with the
 * function that releases it.
 */
export async function takeDirectoryLock(directory: string, prefix: string): Promise<() => Promise<void>> {
  const path = join(directory, `${prefix}.lock`);
  for (let round = 0; round < 3; round++) {
    try {
      const handle = await open(path, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        await unlink(path).catch(() => undefined);
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number((await readFile(path, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(holder) && holder > 0 && alive(holder)) {
        throw new Error(
          `the audit directory ${directory} is written by process ${holder}; give each process its own directory`,
        );
      }
      await unlink(path).catch(() => undefined);
    }
  }
  throw new Error(`could not take the lock ${path}`);
}

/**
 * Instructions per delivery of one sender, counted by valgrind's callgrind on the sending
 * process's main thread (where the engine's JavaScript runs), against the bench's receiver in a
 * process of its own. Unlike CPU time, the count hardly moves with the machine's load, so it
 * compares two builds of the engine on a shared machine. After `pnpm bench:build`:
 * `node --import tsx bench/callgrind-run.ts [engine|postgres|request|dispatch] [events] [warm-up]`
 * (`postgres`: one worker of the Postgres line, KYC_TEST_POSTGRES_URL)
 * (valgrind runs ~50× slower: the defaults take a minute or two). KYC_CALLGRIND_KEEP=<file> keeps
 * the main thread's count for `callgrind_annotate`.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { sampleStatusWebhook } from '@kyc/contracts';
import { createTestCertificate } from '@kyc/test-support';
import { startBenchReceiver } from './receiver.js';

const [sender = 'engine', events = '2000', warmup = '4000'] = process.argv.slice(2);
if (!['engine', 'postgres', 'request', 'dispatch'].includes(sender)) throw new Error(`unknown sender "${sender}"`);
const tls = await createTestCertificate();
const receiver = await startBenchReceiver(tls);
const dir = mkdtempSync(join(tmpdir(), 'kyc-callgrind-'));
const out = join(dir, 'callgrind.out');
const child = spawn(
  'valgrind',
  [
    '--tool=callgrind',
    '--instr-atstart=no',
    '--separate-threads=yes',
    `--callgrind-out-file=${out}`,
    process.execPath,
    // Compilation and collection on the main thread too: the count then repeats within ~1% from
    // run to run, where V8's background threads made it wander by ±3%.
    '--single-threaded',
    '--import',
    'tsx',
    fileURLToPath(new URL('./callgrind-sender.ts', import.meta.url)),
  ],
  {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: {
      ...process.env,
      KYC_CALLGRIND: JSON.stringify({
        sender,
        url: receiver.url,
        ca: tls.cert,
        body: JSON.stringify({ ...sampleStatusWebhook, sessionId: 'bench' }),
        events: Number(events),
        warmup: Number(warmup),
        dir,
      }),
    },
  },
);
let errors = '';
child.stderr.on('data', (chunk: Buffer) => {
  errors += chunk.toString();
});
const pid = String(child.pid);
const callgrind = (...args: string[]) => execFileSync('callgrind_control', [...args, pid], { stdio: 'ignore' });
try {
  for await (const line of createInterface({ input: child.stdout })) {
    if (line === 'measure') callgrind('-i', 'on');
    if (line === 'measured') {
      callgrind('-d');
      callgrind('-i', 'off');
    }
    if (line === 'exit') break;
    child.stdin.write('\n');
  }
  await once(child, 'exit');
  // Thread 1 runs JavaScript, and with --single-threaded compiles and collects too; any other
  // thread is the platform's (under valgrind far busier than at full speed).
  let main = 0;
  let others = 0;
  for (const name of readdirSync(dir).filter((file) => file.startsWith('callgrind.out.1-'))) {
    const summary = /^summary: (\d+)/m.exec(readFileSync(join(dir, name), 'utf8'));
    const count = Number(summary?.[1] ?? 0);
    if (/-01$/.test(name) && process.env.KYC_CALLGRIND_KEEP !== undefined) {
      copyFileSync(join(dir, name), process.env.KYC_CALLGRIND_KEEP);
    }
    if (/-01$/.test(name)) main += count;
    else others += count;
  }
  if (main === 0) throw new Error(`the sender produced no count:\n${errors}`);
  const per = (count: number) => Math.round(count / Number(events)).toLocaleString('en');
  console.log(
    `${sender}: ${events} deliveries, instructions per delivery: main thread ${per(main)}, other threads ${per(others)}`,
  );
} finally {
  receiver.close();
  rmSync(dir, { recursive: true, force: true });
}

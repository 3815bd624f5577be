/**
 * The files owned by a delivery engine in this process, shared by every copy of this package the
 * process has loaded. Two `node_modules` trees give two module instances (and two loaded SQLite
 * libraries, which do not see each other's locks), so a module-level set would let both own one
 * file; `Symbol.for` names one slot on `globalThis` that every copy finds.
 */
const REGISTRY = Symbol.for('@kyc/delivery-engine/sqlite-owners');

type Registry = Map<string, { readonly pid: number; readonly since: number; readonly copy: symbol }>;

/** This copy of the package: two copies load two SQLite libraries, and one must not open a file the other owns. */
const THIS_COPY = Symbol('@kyc/delivery-engine copy');

function registry(): Registry {
  const holder = globalThis as { [REGISTRY]?: Registry };
  holder[REGISTRY] ??= new Map();
  return holder[REGISTRY];
}

/** Claims `realPath` for this process; `false` when some copy of the engine here already owns it. */
export function registerOwner(realPath: string): boolean {
  const owners = registry();
  if (owners.has(realPath)) return false;
  owners.set(realPath, { pid: process.pid, since: Date.now(), copy: THIS_COPY });
  return true;
}

/**
 * Whether another copy of the package in this process owns `realPath`. Its SQLite library does not
 * see this one's locks: opening the file here would reset its shared memory under it, and closing
 * would delete its write-ahead log, as another process does after the owner dropped its locks.
 */
export function ownedByAnotherCopy(realPath: string): boolean {
  const owner = registry().get(realPath);
  return owner !== undefined && owner.copy !== THIS_COPY;
}

export function unregisterOwner(realPath: string): void {
  registry().delete(realPath);
}

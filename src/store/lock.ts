import { dlopen, FFIType, read } from 'bun:ffi'
import { closeSync, constants, fstatSync, ftruncateSync, openSync, readFileSync, statSync, unlinkSync } from 'node:fs'
import { hostname } from 'node:os'
import { writeAllSync } from './write-all'

/**
 * The data file's lock: an OS file lock (flock) on `<file>.lock`, which the kernel takes away the
 * moment its process ends, however it ends. Checking a pid cannot tell a live holder from a
 * reused pid, nor see one in another pid namespace (two containers on one volume are both pid 1);
 * the kernel's lock can. The file names the holder, for the message a second process shows.
 */

const LOCK_EX = 2
const LOCK_NB = 4
const LOCK_UN = 8
const EWOULDBLOCK = 11

const FLOCK = { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 } as const
const POINTER = { args: [], returns: FFIType.ptr } as const

/** flock and where errno is, from the C library `name`: glibc or musl on Linux, libSystem on macOS. */
function cLibrary(name: string) {
  if (process.platform === 'darwin') {
    const { symbols } = dlopen(name, { flock: FLOCK, __error: POINTER })
    return { flock: symbols.flock, errnoAt: symbols.__error }
  }
  const { symbols } = dlopen(name, { flock: FLOCK, __errno_location: POINTER })
  return { flock: symbols.flock, errnoAt: symbols.__errno_location }
}

const LIBRARIES = ['libc.so.6', 'libc.musl-x86_64.so.1', 'libc.musl-aarch64.so.1', 'libSystem.B.dylib']

function libc() {
  for (const name of LIBRARIES) {
    try {
      const { flock, errnoAt } = cLibrary(name)
      return { flock, errno: () => read.i32(errnoAt()!, 0) }
    } catch {
      continue
    }
  }
  throw new Error(`no C library with flock() found (tried ${LIBRARIES.join(', ')})`)
}

let system: ReturnType<typeof libc> | null = null
const os = () => (system ??= libc())

/** Who holds a lock, as its file says. */
interface LockHolder {
  readonly pid: number
  readonly host: string
  readonly started_at: string
}

/** The holder `lockFile` names, in words: "pid 1 on host web-2, since 2026-11-26T09:00:00.000Z". */
function holderIn(lockFile: string): string {
  try {
    const { pid, host, started_at } = JSON.parse(readFileSync(lockFile, 'utf8')) as LockHolder
    if (typeof pid === 'number' && typeof host === 'string') return `pid ${pid} on host ${host}, since ${started_at}`
  } catch {}
  return 'a process that has not written its name yet'
}

/** Tries the lock on an open file: true when taken, false when another process holds it. */
function tryLock(fd: number): boolean {
  if (os().flock(fd, LOCK_EX | LOCK_NB) === 0) return true
  const errno = os().errno()
  if (errno === EWOULDBLOCK) return false
  throw Object.assign(new Error(`flock failed (errno ${errno})`), { code: errno === 37 ? 'ENOLCK' : `E${errno}` })
}

/**
 * Takes the lock on `lockFile` for this process, or says who holds it. The lock is the
 * kernel's: it is never stale, and a holder killed with SIGKILL leaves nothing to clear.
 */
export function acquireLock(lockFile: string): { release: () => void } | { heldBy: string } {
  for (;;) {
    const fd = openSync(lockFile, constants.O_RDWR | constants.O_CREAT, 0o644)
    let taken = false
    try {
      if (!tryLock(fd)) return { heldBy: holderIn(lockFile) }
      // A holder that was releasing may have removed the path after we opened it: a lock on a
      // removed file is no one's lock, so open the path again.
      const path = statSync(lockFile, { throwIfNoEntry: false })
      if (!path || path.ino !== fstatSync(fd).ino) continue
      const holder: LockHolder = { pid: process.pid, host: hostname(), started_at: new Date().toISOString() }
      ftruncateSync(fd, 0)
      writeAllSync(fd, lockFile, `${JSON.stringify(holder)}\n`, 0)
      taken = true
      let held = true
      return {
        release: () => {
          if (!held) return
          held = false
          unlinkSync(lockFile)
          os().flock(fd, LOCK_UN)
          closeSync(fd)
        },
      }
    } finally {
      if (!taken) closeSync(fd)
    }
  }
}

/** Who holds the lock on `lockFile` now, in words, or null when no process does. */
export function lockHolder(lockFile: string): string | null {
  let fd: number
  try {
    fd = openSync(lockFile, constants.O_RDONLY)
  } catch {
    return null
  }
  try {
    if (!tryLock(fd)) return holderIn(lockFile)
    os().flock(fd, LOCK_UN)
    return null
  } finally {
    closeSync(fd)
  }
}

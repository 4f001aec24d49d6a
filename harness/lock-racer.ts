// One contender in a race for a data file's lock: waits (spinning, so that every contender
// starts within the same millisecond) until the time given, takes the lock, says whether it won,
// and holds the lock a moment so that no contender wins after it lets go.
//   bun harness/lock-racer.ts <lock file> <epoch ms to start at>
import { acquireLock } from '../src/store/lock'

const [lockFile, at] = process.argv.slice(2)
while (Date.now() < Number(at)) {}
const lock = acquireLock(lockFile!)
console.log('release' in lock ? 'won' : 'lost')
await Bun.sleep(500)
if ('release' in lock) lock.release()

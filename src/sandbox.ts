// The sandbox for prototyping (docs/reference.md §25), wired: the app of the moment behind the sandbox's
// fetch (src/edge/sandbox.ts), and the reset that replaces it with a new one over the seed.
import type { createApp, AppDeps } from './app'
import type { Config } from './config'
import { readSeedLogos, seedSnapshot, type DataFile } from './data-file'
import type { KeptChanges } from './domain/directory'
import { Conflict, StorageUnavailable } from './domain/errors'
import type { LogoStore, MadeLogo } from './domain/logos'
import { withSeedLogos } from './domain/seed'
import { ADMIN_USERNAME } from './domain/users'
import type { Snapshot } from './model/snapshot'
import { RequestLog, sandboxFetch, WriteTurns, type SandboxControls } from './edge/sandbox'

type App = ReturnType<typeof createApp>
/** What a directory told its store to track: how to capture it, and its change log (and rows). */
type Tracked = [capture: () => Snapshot, log: { readonly issued: number }, ...rest: unknown[]]

export interface SandboxOptions {
  readonly config: Pick<Config, 'seedFile'>
  readonly store: DataFile
  readonly logos: LogoStore
  /** The app over `data`, as index.ts makes it, with the store, the sandbox and when it retires given. */
  readonly build: (deps: Pick<AppDeps, 'store' | 'data' | 'changes' | 'stopping' | 'sandbox'>) => App
  /** Where the service is reached: seed logos' URLs name it. */
  readonly origin: () => string
}

/**
 * The service in the sandbox: its fetch, and its first app (whose `onStop` the server runs). A
 * reset builds a new app over the seed, saves it in one write, then sends every request to it;
 * writes under way finish on the old one first, and those that come meanwhile wait.
 */
export function openSandbox(
  { config, store, logos, build, origin }: SandboxOptions,
  data: Snapshot,
  changes?: KeptChanges,
) {
  const requests = new RequestLog()
  const turns = new WriteTurns()
  let seeded: Promise<{ data: Snapshot; made: MadeLogo[] }> | null = null
  const open = (data: Snapshot, changes: KeptChanges | undefined) => {
    let tracked: Tracked | null = null
    let retired = false
    const app = build({
      store: deferringTrack(store, (args) => (tracked = args)),
      data,
      changes,
      stopping: () => retired,
      sandbox: controls,
    })
    return { app, tracked: tracked! as Tracked, retire: () => ((retired = true), stopHooks(app)) }
  }
  const controls: SandboxControls = {
    requests,
    reset: () =>
      turns.alone(async () => {
        if (!store.resettable)
          throw new Conflict(
            'The sandbox resets a data file or a directory in memory, not PostgreSQL: stop every instance and run npm run reset.',
          )
        seeded ??= seedWithLogos(config.seedFile, logos, origin()).catch((error) => {
          seeded = null
          throw error
        })
        const seed = await seeded
        for (const made of seed.made) await made.keep()
        const old = current
        const was = old.tracked[0]()
        const issued = old.tracked[1].issued
        const next = open(keepingAdmin(structuredClone(seed.data), was), { kept: [], trimmedUpTo: issued + 1 })
        retrack(store, next.tracked)
        try {
          await store.restartLog(issued + 1)
          await store.save()
        } catch {
          retrack(store, old.tracked)
          throw new StorageUnavailable()
        }
        current = next
        old.retire()
        return { clubs: next.tracked[0]().clubs.filter((club) => club.archived_at === null).length }
      }),
  }
  let current = open(data, changes)
  retrack(store, current.tracked)
  return { app: current.app, fetch: sandboxFetch(() => current.app.fetch, requests, turns) }
}

/** What the store saves from now on: the directory that told it `tracked`. */
const retrack = (store: DataFile, tracked: Tracked) =>
  (store.track as (...args: unknown[]) => void).apply(store, tracked)

/**
 * `store`, with its `track` told to `told` rather than done: a directory opened over it is not
 * what the store saves until the sandbox says so (after its reset's write, or its first start).
 */
function deferringTrack(store: DataFile, told: (args: Tracked) => void): DataFile {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'track') return (...args: unknown[]) => told(args as Tracked)
      const value = Reflect.get(target, property, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

/** The seed, with its logos kept as a first start keeps them; the logos made, to keep again at each reset. */
async function seedWithLogos(seedFile: string, logos: LogoStore, origin: string) {
  const made: MadeLogo[] = []
  const remembering: LogoStore = {
    read: (name, size) => logos.read(name, size),
    names: () => logos.names(),
    remove: (name) => logos.remove(name),
    make: async (bytes) => {
      const logo = await logos.make(bytes)
      if (!('problem' in logo)) made.push(logo)
      return logo
    },
  }
  const { data } = await withSeedLogos(await seedSnapshot(seedFile), remembering, await readSeedLogos(seedFile), origin)
  return { data, made }
}

/** The seed, with the admin the directory had (its development token keeps working across resets). */
function keepingAdmin(seed: Snapshot, was: Snapshot): Snapshot {
  const admin = was.users.find((user) => user.username === ADMIN_USERNAME)
  if (!admin || seed.users.some((user) => user.username === ADMIN_USERNAME)) return seed
  return { ...seed, users: [...seed.users, admin] }
}

/** Runs an app's stop hooks (its timers) without a server to stop: a retired app serves no more. */
function stopHooks(app: App): void {
  for (const hook of (app.event.stop ?? []) as unknown[])
    void (typeof hook === 'function' ? hook : (hook as { fn: (app: App) => unknown }).fn)(app)
}

import { afterEach, describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import { ADMIN_TOKEN, makeApp, readJson, tempDir } from '../harness/app'
import { directoryOnDisk, replayedAndWhole } from '../harness/on-disk'
import { FORM, ORIGIN, siteSession } from '../harness/site-session'
import { users } from '../harness/users'
import { heldReceiver, startReceiver, until } from '../harness/webhook-receiver'
import { MAX_WAITING } from '../src/domain/webhooks'

// The data file's invariant (docs/development.md, the path of a write): its snapshot with the
// journal's entries replayed is the directory a whole write makes, because every write marks every
// key it changed. One app makes writes of every collection through the API, webhooks given up and
// deleted among them, then the replayed directory is compared with the one store.save() writes.

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

type Json = Record<string, any>

/** The app on the real clock (deliveries are due by it) over a new data file, allowing receivers on this machine. */
async function world() {
  const dataFile = join(tempDir(), 'clubs.json')
  const app = await makeApp({
    dataFile,
    now: () => new Date(),
    config: { webhookAllowPrivate: true },
    webhookRetries: [60_000],
  })
  // The new file's first snapshot is the seed as it is, whose clubs lack the fields added since
  // (read as their defaults); written whole once, the file is all this release's format.
  await app.store.save()
  const tokens: Record<string, string> = {
    admin: ADMIN_TOKEN,
    ...(await users(app, 'owner', 'officer', 'member', 'asker', 'waiter', 'student', 'leaver')),
  }
  const as = (who: string) => (method: string, path: string, json?: unknown) =>
    app.req(path, { method, token: tokens[who], json })
  /** Sends a request as `who` and expects `status`; answers the body, parsed when there is one. */
  const ok = async (who: string, method: string, path: string, json: unknown, status: number): Promise<Json> => {
    const res = await as(who)(method, path, json)
    expect([method, path, res.status]).toEqual([method, path, status])
    return status === 204 ? {} : readJson(res)
  }
  return { ...app, dataFile, tokens, ok }
}
type World = Awaited<ReturnType<typeof world>>

/** Users, tokens, tags, clubs, people, saved clubs, join requests, interest, invites, a round and sessions. */
async function directoryWrites({ ok, tokens, req }: World) {
  await ok('admin', 'POST', '/api/users/leaver/token/', {}, 201)
  await ok('admin', 'DELETE', '/api/users/leaver/token/', undefined, 204)
  await ok('admin', 'PATCH', '/api/users/leaver/', { is_active: false }, 200)
  const tag = await ok('admin', 'POST', '/api/tags/', { name: 'Replayed' }, 201)
  await ok('admin', 'PATCH', `/api/tags/${tag.id}/`, { name: 'Replayed Twice' }, 200)
  const doomed = await ok('admin', 'POST', '/api/tags/', { name: 'Doomed' }, 201)
  await ok('admin', 'DELETE', `/api/tags/${doomed.id}/`, undefined, 204)

  const { code } = await ok('owner', 'POST', '/api/clubs/', { name: 'Replay Club', accepting_members: true }, 201)
  const club = `/api/clubs/${code}/`
  await ok('owner', 'POST', `${club}members/`, { username: 'officer', role: 'officer' }, 201)
  await ok('owner', 'POST', `${club}members/`, { username: 'member', role: 'member' }, 201)
  await ok('admin', 'PATCH', club, { approved: true, tags: [{ name: 'Replayed Twice' }] }, 200)
  await ok('owner', 'PATCH', club, { subtitle: 'Changed after approval' }, 200)
  await ok('admin', 'PATCH', club, { approved: true }, 200)
  const gone = await ok('admin', 'POST', '/api/clubs/', { name: 'Short Lived', approved: true }, 201)
  await ok('admin', 'DELETE', `/api/clubs/${gone.code}/`, undefined, 204)

  for (const saved of ['/api/favorites/', '/api/subscriptions/']) {
    await ok('member', 'POST', saved, { club: code }, 201)
    await ok('officer', 'POST', saved, { club: code }, 201)
    await ok('officer', 'DELETE', `${saved}${code}/`, undefined, 204)
  }
  await ok('asker', 'POST', `${club}requests/`, { message: 'Let me in' }, 201)
  await ok('owner', 'POST', `${club}requests/asker/accept/`, undefined, 201)
  await ok('student', 'POST', `${club}requests/`, { message: 'Me too' }, 201)
  await ok('owner', 'DELETE', `${club}requests/student/`, undefined, 204)
  await ok('waiter', 'POST', `${club}requests/`, {}, 201)

  const interest = (name: string) =>
    req(`/clubs/${code}/interest`, {
      method: 'POST',
      headers: { 'content-type': FORM, origin: ORIGIN },
      body: new URLSearchParams({ name, email: `${name.toLowerCase()}@campus.example.edu`, consent: 'true' }),
    })
  for (const name of ['Ada', 'Grace']) expect((await interest(name)).status).toBe(303)
  const [entry] = (await ok('admin', 'GET', `${club}interested/`, undefined, 200)) as Json[]
  await ok('admin', 'DELETE', `${club}interested/${entry.id}/`, undefined, 204)

  const invite = await ok('officer', 'POST', `${club}invites/`, { expires_in_hours: 24, max_uses: 2 }, 201)
  const ended = await ok('officer', 'POST', `${club}invites/`, { expires_in_hours: 2 }, 201)
  await ok('officer', 'DELETE', `${club}invites/${ended.id}/`, undefined, 204)
  const student = await siteSession({ req }, tokens.student!)
  expect((await student.post(`/invites/${invite.url.split('/').at(-1)}`)).status).toBe(200)
  expect((await student.post('/sign-out')).status).toBe(303)
  await siteSession({ req }, tokens.member!)

  const deadline = new Date(Date.now() + 14 * 86_400_000).toISOString().slice(0, 10)
  await ok('admin', 'POST', '/api/registration-rounds/', { deadline, message: 'Check your officers.' }, 201)
  await ok('officer', 'POST', `${club}registration/`, undefined, 200)
  await ok('admin', 'POST', '/api/registration-rounds/current/close/', undefined, 200)
  return code as string
}

describe('the journal', () => {
  it('replays to the directory a whole write makes, after writes of every collection and webhooks given up and deleted', async () => {
    const w = await world()
    const code = await directoryWrites(w)
    // One receiver holds its attempts while the events pile up past MAX_WAITING, then fails them:
    // the oldest given up are mostly never attempted. Another fails at once, and its webhook is
    // deleted with deliveries waiting for a retry; a third takes every delivery.
    const held = heldReceiver(500)
    const failing = startReceiver(() => new Response('down', { status: 500 }))
    const taking = startReceiver()
    cleanups.push(held.stop, failing.stop, taking.stop, held.release)
    const hook = async (url: string) => (await w.ok('admin', 'POST', '/api/webhooks/', { url }, 201)).id as number
    const heldHook = await hook(held.url)
    const deletedHook = await hook(failing.url)
    await hook(taking.url)
    const events = MAX_WAITING + 50
    for (let i = 1; i <= events; i++)
      await w.ok('admin', 'PATCH', `/api/clubs/${code}/`, { subtitle: `Piling up ${i}` }, 200)
    await w.ok('admin', 'DELETE', `/api/webhooks/${deletedHook}/`, undefined, 204)
    held.release()
    // Quiet: every event sent or given up, every outcome saved (the webhooks save them within a second).
    await until(
      () => {
        const saved = directoryOnDisk(w.dataFile)
        const dropped = saved.webhooks.find((h: Json) => h.id === heldHook)?.dropped_deliveries
        return (
          dropped === events - MAX_WAITING &&
          new Set(taking.events().map((event) => event.seq)).size === events &&
          (saved.webhook_events ?? []).every((e: Json) => !e.waiting?.length) &&
          (saved.webhook_deliveries ?? []).every((d: Json) => d.attempts > 0)
        )
      },
      'the webhooks quiet, their outcomes on disk',
      30_000,
    )
    const { replayed, whole } = await replayedAndWhole(w.store, w.dataFile)
    expect(replayed).toEqual(whole)
  })
})

// What OURS is compared with: the runtime's ceiling for the same bytes, and json-server.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { count, measure, settler, type Recorder } from './measure'
import { sampleRss } from './procs'
import { startCeiling, startJsonServer } from './servers'

/** CEILING: the list's exact bytes from a bare Bun.serve; returns its peak RSS in MB. */
export async function benchCeiling(listFile: string, rec: Recorder): Promise<number> {
  const ceiling = await startCeiling(listFile)
  const sampler = sampleRss(ceiling.child.pid)
  const load = () => ({ url: `${ceiling.base}/` })
  rec.record(
    'ceiling',
    'list',
    'list (same bytes)',
    await measure(ceiling.child.pid, load, settler(`${ceiling.base}/`)),
  )
  const peak = await sampler.stop()
  await ceiling.stop()
  return peak
}

/** json-server over the same list representation objects, with `id` = code. */
export async function benchJsonServer(dir: string, list: { code: string }[], code: string, rec: Recorder) {
  mkdirSync(dir, { recursive: true })
  const clubs = list.map((club) => ({ id: club.code, ...club }))
  await Bun.write(join(dir, 'db.json'), JSON.stringify({ clubs }, null, 2))
  const js = await startJsonServer(dir, `/clubs/${code}`)
  const settle = settler(`${js.base}/clubs/${code}`)
  const pid = js.child.pid
  const get = (path: string) => () => ({ url: js.base + path })

  rec.record('json-server', 'list', 'list /clubs', await measure(pid, get('/clubs'), settle))
  rec.record('json-server', 'ordering', 'list /clubs?_sort=name', await measure(pid, get('/clubs?_sort=name'), settle))
  rec.record('json-server', 'retrieve', 'retrieve /clubs/<id>', await measure(pid, get(`/clubs/${code}`), settle))
  const creates = (phase: string) => ({
    url: `${js.base}/clubs`,
    script: 'create.lua',
    args: [`j${list.length}${phase}`],
  })
  const created = await measure(pid, creates, settle)
  const n201 = created.statuses['201'] ?? 0
  rec.record('json-server', 'create', 'create POST /clubs', created, {
    check: `${count(n201)} of ${count(created.requests)} answers were 201`,
    ok: n201 > 0 && n201 === created.requests,
  })
  await js.stop()
}

import { it } from 'bun:test'
import { makeApp } from './helpers'
it('explore', async () => {
  const { req, admin } = await makeApp()
  const show = async (label: string, p: Promise<Response>) => {
    const r = await p
    const t = await r.text()
    console.log(label, r.status, JSON.stringify(Object.fromEntries(r.headers)), t.slice(0, 300))
  }
  await show('list noslash', req('/api/clubs'))
  await show('detail noslash', req('/api/clubs/penn-chess-society'))
  await show('head', req('/api/clubs/', { method: 'HEAD' }))
  await show('headd', req('/api/clubs/penn-chess-society/', { method: 'HEAD' }))
  await show('opt', req('/api/clubs/', { method: 'OPTIONS' }))
  await show('del list', req('/api/clubs/', { method: 'DELETE' }))
  await show('post det', req('/api/clubs/penn-chess-society/', { method: 'POST' }))
  await show('nope', req('/nope'))
  await show('nope api', req('/api/clubs/nope/?format=api'))
  await show('xml', req('/api/clubs/?format=xml'))
  await show('health', req('/health'))
  await show('tags', req('/api/tags/'))
  await show('tags noslash', req('/api/tags'))
  await show('create', admin.post('/api/clubs/', { name: '  Über Chess Club ' }))
  await show('create emoji', admin.post('/api/clubs/', { name: '🎉🎉' }))
  await show('anon create', req('/api/clubs/', { method: 'POST', json: { name: 'x' } }))
  await show('bad token', req('/api/clubs/', { method: 'POST', json: { name: 'x' }, token: 'wrong' }))
  await show('text', req('/api/clubs/', { method: 'POST', body: '{}', token: 'test-admin-token', headers: { 'content-type': 'text/plain' } }))
  await show('malformed', req('/api/clubs/', { method: 'POST', body: '{bad', token: 'test-admin-token', headers: { 'content-type': 'application/json' } }))
  await show('big', req('/api/clubs/', { method: 'POST', body: JSON.stringify({ description: 'x'.repeat(1024 * 1024 + 10) }), token: 'test-admin-token', headers: { 'content-type': 'application/json' } }))
  await show('arr', admin.post('/api/clubs/', []))
  await show('puterr', admin.put('/api/clubs/penn-chess-society/', {}))
  await show('quadball', admin.get('/api/clubs/quadball-club/'))
  await show('seoul', admin.get('/api/clubs/seoul-motion-dance-crew/'))
})

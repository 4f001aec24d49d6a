// docs/perf-chart.svg: list throughput against data-set size, one line per server, log scales.
import type { ServerName } from './measure'
import type { SizeResult } from './scenarios'

const W = 760
const H = 440
const M = { top: 80, right: 70, bottom: 60, left: 80 }
/** `below`: value labels under the points, so that they do not collide with the ceiling's. */
const SERIES: { server: ServerName; name: string; colour: string; dash?: string; below?: boolean }[] = [
  { server: 'ceiling', name: 'CEILING (Bun.serve, same bytes)', colour: '#888888', dash: '6 4' },
  { server: 'ours', name: 'OURS (club directory)', colour: '#1f6feb', below: true },
  { server: 'json-server', name: 'json-server 1.0 beta', colour: '#d9480f' },
]

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;')
const short = (n: number) => (n >= 1000 ? `${+(n / 1000).toPrecision(3)}k` : `${+n.toPrecision(3)}`)

export function listChart(sizes: readonly SizeResult[]): string {
  const points = SERIES.map((s) => ({
    ...s,
    values: sizes.map((r) => r.scenarios.find((x) => x.server === s.server && x.key === 'list')?.rps ?? 0),
  }))
  const all = points.flatMap((p) => p.values).filter((v) => v > 0)
  const lo = Math.floor(Math.log10(Math.min(...all, 10)))
  const hi = Math.ceil(Math.log10(Math.max(...all, 100)))
  const plotW = W - M.left - M.right
  const plotH = H - M.top - M.bottom
  const round = (n: number) => Math.round(n * 10) / 10
  const x = (i: number) => round(M.left + (sizes.length === 1 ? plotW / 2 : (i * plotW) / (sizes.length - 1)))
  const y = (v: number) => round(M.top + plotH - ((Math.log10(v) - lo) / (hi - lo)) * plotH)

  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="#ffffff"/>`,
    `<text x="${M.left}" y="24" font-size="15" font-weight="bold">List throughput (GET all clubs) against data-set size</text>`,
  ]
  for (let p = lo; p <= hi; p++) {
    const v = 10 ** p
    out.push(`<line x1="${M.left}" x2="${M.left + plotW}" y1="${y(v)}" y2="${y(v)}" stroke="#dddddd"/>`)
    out.push(`<text x="${M.left - 8}" y="${y(v) + 4}" text-anchor="end">${short(v)}</text>`)
  }
  sizes.forEach((r, i) => {
    out.push(`<line x1="${x(i)}" x2="${x(i)}" y1="${M.top + plotH}" y2="${M.top + plotH + 5}" stroke="#333333"/>`)
    out.push(`<text x="${x(i)}" y="${M.top + plotH + 20}" text-anchor="middle">${r.size.toLocaleString('en')}</text>`)
  })
  out.push(
    `<line x1="${M.left}" x2="${M.left}" y1="${M.top}" y2="${M.top + plotH}" stroke="#333333"/>`,
    `<line x1="${M.left}" x2="${M.left + plotW}" y1="${M.top + plotH}" y2="${M.top + plotH}" stroke="#333333"/>`,
    `<text x="${M.left + plotW / 2}" y="${H - 15}" text-anchor="middle">clubs in the data set (log scale)</text>`,
    `<text transform="translate(20 ${M.top + plotH / 2}) rotate(-90)" text-anchor="middle">requests per second (log scale)</text>`,
  )
  for (const s of points) {
    const at = s.values.map((v, i) => ({ v, i })).filter(({ v }) => v > 0)
    const path = at.map(({ v, i }) => `${x(i)},${y(v)}`).join(' ')
    out.push(
      `<polyline points="${path}" fill="none" stroke="${s.colour}" stroke-width="2.5"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`,
    )
    for (const { v, i } of at) {
      out.push(`<circle cx="${x(i)}" cy="${y(v)}" r="4" fill="${s.colour}"/>`)
      out.push(`<text x="${x(i) + 7}" y="${y(v) + (s.below ? 17 : -7)}" fill="${s.colour}">${short(v)}</text>`)
    }
  }
  let lx = M.left
  for (const s of points) {
    const ly = 50
    out.push(
      `<line x1="${lx}" x2="${lx + 24}" y1="${ly}" y2="${ly}" stroke="${s.colour}" stroke-width="2.5"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`,
      `<text x="${lx + 30}" y="${ly + 4}">${esc(s.name)}</text>`,
    )
    lx += 60 + s.name.length * 6.5
  }
  out.push('</svg>', '')
  return out.join('\n')
}

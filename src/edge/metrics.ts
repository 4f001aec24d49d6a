import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])

/**
 * The service's Prometheus metrics (docs/reference.md §17), in a registry of its own: requests by
 * method, route template (never a raw path: one series per endpoint, not per club) and
 * status; request durations; clubs by state; snapshot writes; the process's memory and CPU.
 */
export class Metrics {
  readonly registry = new Registry()
  readonly #requests = new Counter({
    name: 'clubs_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  })
  readonly #durations = new Histogram({
    name: 'clubs_http_request_duration_seconds',
    help: 'Time from receiving a request to its answer, by method and route template.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  })
  readonly #writes = new Counter({
    name: 'clubs_snapshot_writes_total',
    help: 'Snapshot writes of the data file, by outcome (ok, failed).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  })
  readonly #writeDurations = new Histogram({
    name: 'clubs_snapshot_write_duration_seconds',
    help: 'Time to write, fsync and rename one snapshot of the data file.',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  })

  #clubsByState: () => Record<string, number> = () => ({})

  constructor() {
    const metrics = this
    new Gauge({
      name: 'clubs_clubs',
      help: 'Live (not archived) clubs by state.',
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect() {
        for (const [state, count] of Object.entries(metrics.#clubsByState())) this.set({ state }, count)
      },
    })
    collectDefaultMetrics({ register: this.registry, prefix: 'clubs_' })
  }

  /** Where the clubs-by-state gauge reads its counts (the directory, once it is open). */
  countClubsWith(clubsByState: () => Record<string, number>): void {
    this.#clubsByState = clubsByState
  }

  /** One answered request; `route` is the endpoint's template ('/api/clubs/:code/'), or 'unmatched'. */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    const m = METHODS.has(method) ? method : 'OTHER'
    this.#requests.inc({ method: m, route, status: String(status) })
    this.#durations.observe({ method: m, route }, seconds)
  }

  observeWrite(seconds: number, ok: boolean): void {
    this.#writes.inc({ outcome: ok ? 'ok' : 'failed' })
    this.#writeDurations.observe(seconds)
  }

  text(): Promise<string> {
    return this.registry.metrics()
  }
}

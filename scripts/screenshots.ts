// Refreshes the screenshots the docs show from the browser tests, which take them in headless
// Chromium against the real service; an ordinary test run writes them elsewhere.
//   npm run screenshots
import { join } from 'node:path'

/** Each test file, and the folder its pictures belong in. */
const SHOTS = [
  { test: 'test/browser.test.ts', dir: 'docs' },
  { test: 'test/site-pages-browser.test.ts', dir: join('docs', 'screenshots') },
  { test: 'test/site-poster-browser.test.ts', dir: join('docs', 'screenshots') },
  { test: 'test/site-invites-browser.test.ts', dir: join('docs', 'screenshots') },
  { test: 'test/site-rounds-browser.test.ts', dir: join('docs', 'screenshots') },
]

if (process.argv.includes('--help')) {
  console.log(
    `usage: npm run screenshots\nRuns ${SHOTS.map((s) => s.test).join(' and ')} and keeps their screenshots in ${SHOTS.map((s) => `${s.dir}/`).join(' and ')}.`,
  )
  process.exit(0)
}
const root = join(import.meta.dir, '..')
for (const { test, dir } of SHOTS) {
  const run = Bun.spawnSync([process.execPath, 'test', test], {
    cwd: root,
    env: { ...process.env, CLUBS_SCREENSHOTS_DIR: join(root, dir) },
    stdout: 'inherit',
    stderr: 'inherit',
  })
  if (run.exitCode !== 0) process.exit(run.exitCode ?? 1)
}

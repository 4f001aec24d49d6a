// Refreshes the README's screenshots (docs/*.png) from the browser tests, which take them in
// headless Chromium against the real service; an ordinary test run writes them elsewhere.
//   npm run screenshots
import { join } from 'node:path'

if (process.argv.includes('--help')) {
  console.log(
    'usage: npm run screenshots\nRuns test/browser.test.ts and writes its screenshots to docs/ for the README.',
  )
  process.exit(0)
}
const root = join(import.meta.dir, '..')
const run = Bun.spawnSync([process.execPath, 'test', 'test/browser.test.ts'], {
  cwd: root,
  env: { ...process.env, CLUBS_SCREENSHOTS_DIR: join(root, 'docs') },
  stdout: 'inherit',
  stderr: 'inherit',
})
process.exit(run.exitCode ?? 1)

// Issues a user and prints their token, straight into the data file (or the database). Refuses
// while the server runs on the data file (it locks it): then use `POST /api/users/` instead.
//   npm run users:add -- <username> [--admin]
import { parseArgs } from 'node:util'
import { runOperatorCommand } from '../src/operator'
import { answerHelp } from '../src/command-help'
import { ADMIN_USERNAME } from '../src/domain/users'

const USAGE = 'usage: npm run users:add -- <username> [--admin]'
answerHelp(`${USAGE}

Adds a user to the data file (CLUBS_DATA_FILE, or data/db.json) and prints their token, shown
this once; the file keeps only its SHA-256. --admin makes them an admin. Run it while the server
is stopped; while it runs, send POST /api/users/ {"username": "..."} with an admin's token.
With CLUBS_DATABASE_URL it adds the user to that database, also while its instances run (they
take the user in within a second).`)

/** The arguments; an unknown option is a usage error (exit 2), not a stack trace. */
function commandLine() {
  try {
    return parseArgs({
      args: Bun.argv.slice(2),
      options: { admin: { type: 'boolean', default: false } },
      allowPositionals: true,
    })
  } catch (error) {
    console.error(`users:add: ${(error as Error).message}\n${USAGE}`)
    process.exit(2)
  }
}

const { positionals, values } = commandLine()

runOperatorCommand(
  {
    name: 'users:add',
    usage: '<username> [--admin]',
    whileServing: ([username]) =>
      `add users through it with POST /api/users/ {"username": "${username}"} and an admin's token`,
    async run([username], { users }, dataFile) {
      const problem = users.problemWith(username)
      if (problem) {
        console.error(`users:add: ${username}: ${problem} (data file: ${dataFile})`)
        if (username === ADMIN_USERNAME) console.error(`The "${ADMIN_USERNAME}" user's token is CLUBS_ADMIN_TOKEN.`)
        else if (users.exists(username!))
          console.error(`To give ${username} a new token: npm run users:token -- ${username}`)
        return 1
      }
      const issued = await users.issue(username!, values.admin)
      console.log(`Added ${issued.is_admin ? 'admin' : 'user'} "${issued.username}" to ${dataFile}.`)
      console.log(`Token (shown this once; only its hash is stored):\n${issued.token}`)
      return 0
    },
  },
  positionals,
)

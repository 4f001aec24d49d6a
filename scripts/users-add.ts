// Issues a user and prints their token, straight into the data file. Refuses while the
// server runs (the data file is locked by it): then use `POST /api/users/` instead.
//   npm run users:add -- <username> [--admin]
import { parseArgs } from 'node:util'
import { runOperatorCommand } from '../harness/operator'
import { ADMIN_USERNAME } from '../src/domain/users'

const { positionals, values } = parseArgs({
  args: Bun.argv.slice(2),
  options: { admin: { type: 'boolean', default: false } },
  allowPositionals: true,
})

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

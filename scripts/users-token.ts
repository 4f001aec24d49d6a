// Issues an existing user a new token, straight into the data file; their previous token stops
// working. Refuses while the server runs (the data file is locked by it): then use
// `POST /api/users/<username>/token/` instead.
//   npm run users:token -- <username>
import { runOperatorCommand } from '../harness/operator'
import { ADMIN_USERNAME } from '../src/domain/users'

runOperatorCommand(
  {
    name: 'users:token',
    usage: '<username>',
    whileServing: ([username]) =>
      `issue the token through it with POST /api/users/${username}/token/ and an admin's (or that user's) token`,
    async run([username], { users }, dataFile) {
      if (username === ADMIN_USERNAME) {
        console.error(
          `users:token: the "${ADMIN_USERNAME}" user's token is CLUBS_ADMIN_TOKEN; change it in the server's environment.`,
        )
        return 1
      }
      const user = users.directory.get(username!)
      if (!user) {
        console.error(
          `users:token: there is no user "${username}" in ${dataFile}. To add one: npm run users:add -- ${username}`,
        )
        return 1
      }
      const issued = await users.reissueAs(user)
      console.log(`Issued a new token to "${issued.username}" in ${dataFile}; the previous one no longer works.`)
      console.log(`Token (shown this once; only its hash is stored):\n${issued.token}`)
      return 0
    },
  },
  Bun.argv.slice(2),
)

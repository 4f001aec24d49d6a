// Issues an existing user a new token, straight into the data file (or the database); their
// previous token stops working. Refuses while the server runs on the data file (it locks it): then use
// `POST /api/users/<username>/token/` instead.
//   npm run users:token -- <username>
import { runOperatorCommand } from '../src/operator'
import { answerHelp } from '../src/command-help'
import { ADMIN_USERNAME } from '../src/domain/users'

answerHelp(`usage: npm run users:token -- <username>

Issues an existing user a new token in the data file (CLUBS_DATA_FILE, or data/db.json) and prints
it, shown this once; their previous token stops working. "admin" gets a new development admin
token (only without CLUBS_ADMIN_TOKEN, outside production). Run it while the server is stopped;
while it runs, send POST /api/users/<username>/token/ with an admin's (or that user's) token.
With CLUBS_DATABASE_URL it issues the token in that database, also while its instances run (the
new token works through them, and the old one stops, within a second).`)

runOperatorCommand(
  {
    name: 'users:token',
    usage: '<username>',
    whileServing: ([username]) =>
      username === ADMIN_USERNAME
        ? `stop it first: the development admin token is issued only while it is stopped`
        : `issue the token through it with POST /api/users/${username}/token/ and an admin's (or that user's) token`,
    async run([username], { users }, dataFile, config) {
      if (username === ADMIN_USERNAME) {
        if (config.adminToken !== null || config.production) {
          console.error(
            `users:token: the "${ADMIN_USERNAME}" user's token is CLUBS_ADMIN_TOKEN; change it in the server's environment.`,
          )
          return 1
        }
        const issued = await users.issueDevelopmentAdmin()
        console.log(`Issued a new development admin token in ${dataFile}; the previous one no longer works.`)
        console.log(
          `It opens the API while CLUBS_ADMIN_TOKEN is unset, outside production. Token (shown this once):\n${issued.token}`,
        )
        return 0
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

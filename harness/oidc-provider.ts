// A real OpenID provider (the `oidc-provider` package) on loopback, for the campus sign-in tests
// and the timing script: discovery, JWKS and a token endpoint. Its access tokens are JWTs for the
// API's audience, issued through the client credentials grant with a resource indicator: each
// person is a client, and the provider adds their username and groups to the tokens it signs.
import { createServer, type Server } from 'node:http'
import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload } from 'jose'
import Provider from 'oidc-provider'

export const AUDIENCE = 'https://clubs.example.edu/api'
export const ADMIN_GROUP = 'clubs-admins'

export type Alg = 'RS256' | 'ES256'

export interface Person {
  /** The claims the provider puts in this person's tokens (preferred_username, groups, ...). */
  readonly claims: Record<string, unknown>
  /** How the provider signs their tokens; RS256 when absent. */
  readonly alg?: Alg
}

/** One signing key of the provider's, the private half kept so a test can sign as the provider would. */
export interface SigningKey {
  readonly kid: string
  readonly alg: Alg
  readonly privateKey: CryptoKey
  readonly publicJwk: JWK
  readonly privateJwk: JWK
}

let generation = 0

async function newKey(alg: Alg): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true })
  const kid = `${alg.toLowerCase()}-${++generation}`
  const meta = { kid, alg, use: 'sig' }
  return {
    kid,
    alg,
    privateKey,
    publicJwk: { ...(await exportJWK(publicKey)), ...meta },
    privateJwk: { ...(await exportJWK(privateKey)), ...meta },
  }
}

const secretOf = (clientId: string) => `secret-of-${clientId}`

/** Starts the provider on 127.0.0.1 (on `port`, or a free one). */
export async function startProvider(people: Record<string, Person>, port = 0) {
  let keys = [await newKey('RS256'), await newKey('ES256')]
  const requests: string[] = []
  let handle: ReturnType<Provider['callback']> = () => {}

  const server: Server = createServer((request, response) => {
    requests.push(new URL(request.url ?? '/', 'http://x').pathname)
    handle(request, response)
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as { port: number }).port}`

  /** A provider instance publishing `published` and signing with the first key of each alg. */
  const configure = (published: SigningKey[]) => {
    const provider = new Provider(issuer, {
      jwks: { keys: published.map((key) => key.privateJwk) },
      clients: Object.keys(people).map((clientId) => ({
        client_id: clientId,
        client_secret: secretOf(clientId),
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
      })),
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => AUDIENCE,
          getResourceServerInfo: (_ctx: unknown, resource: string, client: { clientId: string }) => ({
            scope: 'clubs',
            audience: resource,
            accessTokenFormat: 'jwt',
            accessTokenTTL: 300,
            jwt: { sign: { alg: people[client.clientId]?.alg ?? 'RS256' } },
          }),
        },
      },
      ttl: { ClientCredentials: 300 },
      extraTokenClaims: (_ctx: unknown, token: { clientId: string }) => people[token.clientId]?.claims,
    })
    handle = provider.callback()
  }
  configure(keys)

  return {
    issuer,
    port: Number(new URL(issuer).port),
    /** The paths asked for, in order ('/jwks', '/.well-known/openid-configuration', '/token'). */
    requests,
    /** The keys it publishes now, newest first. */
    keys: () => keys,

    /** An access token for `clientId`, through the token endpoint (client credentials, resource = AUDIENCE). */
    async token(clientId: string, resource = AUDIENCE): Promise<string> {
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${btoa(`${clientId}:${secretOf(clientId)}`)}`,
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'clubs', resource }),
      })
      const body = (await response.json()) as { access_token?: string }
      if (!response.ok || !body.access_token)
        throw new Error(`token endpoint: ${response.status} ${JSON.stringify(body)}`)
      return body.access_token
    },

    /** Signs `claims` as the provider would (its key, its issuer, the API's audience, 5 minutes), `claims` winning. */
    async sign(claims: JWTPayload, alg: Alg = 'RS256'): Promise<string> {
      const key = keys.find((k) => k.alg === alg)!
      const now = Math.floor(Date.now() / 1000)
      return new SignJWT({ iss: issuer, aud: AUDIENCE, iat: now, exp: now + 300, ...claims })
        .setProtectedHeader({ alg, kid: key.kid, typ: 'at+jwt' })
        .sign(key.privateKey)
    },

    /** Publishes new keys (the old ones too, as providers do during a rollover) and signs with the new ones. */
    async rotate(): Promise<void> {
      keys = [await newKey('RS256'), await newKey('ES256'), ...keys]
      configure(keys)
    },

    stop(): Promise<void> {
      return new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
    },
  }
}

export type TestProvider = Awaited<ReturnType<typeof startProvider>>

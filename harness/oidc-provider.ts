// A real OpenID provider (the `oidc-provider` package) on loopback, for the campus sign-in tests
// and the timing script: discovery, JWKS and a token endpoint. Its access tokens are JWTs for the
// API's audience, issued through the client credentials grant with a resource indicator: each
// person is a client, and the provider adds their username and groups to the tokens it signs.
// For the site's sign-in it also runs the authorization code flow: each person is an account too,
// who signs in on the provider's own development pages (any password) and consents.
import { createServer, type Server, type ServerResponse } from 'node:http'
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload } from 'jose'
import Provider from 'oidc-provider'
import type { OidcSettings } from '../src/edge/oidc'

export const AUDIENCE = 'https://clubs.example.edu/api'
export const ADMIN_GROUP = 'clubs-admins'
/** Campus sign-in as the service is configured for this provider at `issuer` (the API's audience, its admin group). */
export const campusSettings = (issuer: string, overrides: Partial<OidcSettings> = {}): OidcSettings => ({
  issuer,
  audience: AUDIENCE,
  usernameClaim: 'preferred_username',
  groupsClaim: 'groups',
  adminGroup: ADMIN_GROUP,
  ...overrides,
})

/** The site's client: confidential (it holds SITE_CLIENT_SECRET). */
export const SITE_CLIENT = 'clubs-site'
export const SITE_CLIENT_SECRET = 'secret-of-the-site'
/** The site as a public client: PKCE alone, no secret. */
export const PUBLIC_SITE_CLIENT = 'clubs-site-public'
/** Another site at the same provider, with the same redirect URIs: its codes and ID tokens are not ours. */
export const OTHER_SITE_CLIENT = 'other-site'
/** Where the site's clients may be sent back to, unless the test names others (the in-process app's). */
export const IN_PROCESS_REDIRECT = 'http://localhost/auth/callback'

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

/** The site's clients, sent back to `redirectUris` only. */
const siteClients = (redirectUris: readonly string[]) =>
  [
    { client_id: SITE_CLIENT, client_secret: SITE_CLIENT_SECRET },
    { client_id: PUBLIC_SITE_CLIENT, token_endpoint_auth_method: 'none' },
    { client_id: OTHER_SITE_CLIENT, client_secret: secretOf(OTHER_SITE_CLIENT) },
  ].map((client) => ({
    ...client,
    grant_types: ['authorization_code'],
    response_types: ['code'],
    redirect_uris: [...redirectUris],
  }))

/**
 * Changes the ID tokens the token endpoint answers (a provider that misbehaves, for the refusals):
 * edited claims, signed with the provider's key; or a whole token of the test's making.
 */
export type IdTokenEdit = (claims: JWTPayload) => JWTPayload | Promise<string>

/**
 * Starts the provider on 127.0.0.1 (on `port`, or a free one). The site's clients may be sent
 * back to `redirectUris` (the in-process app's callback unless told).
 */
export async function startProvider(
  people: Record<string, Person>,
  port = 0,
  { redirectUris = [IN_PROCESS_REDIRECT] }: { redirectUris?: readonly string[] } = {},
) {
  let keys = [await newKey('RS256'), await newKey('ES256')]
  const requests: string[] = []
  let handle: ReturnType<Provider['callback']> = () => {}
  let editIdTokens: IdTokenEdit | null = null

  const signWith = (claims: JWTPayload, alg: Alg, typ: string) => {
    const key = keys.find((k) => k.alg === alg)!
    return new SignJWT(claims).setProtectedHeader({ alg, kid: key.kid, typ }).sign(key.privateKey)
  }

  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname
    requests.push(path)
    if (path === '/token' && editIdTokens)
      reissueIdToken(response, editIdTokens, (claims) => signWith(claims, 'RS256', 'JWT'))
    handle(request, response)
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as { port: number }).port}`

  /** A provider instance publishing `published` and signing with the first key of each alg. */
  const configure = (published: SigningKey[]) => {
    const provider = new Provider(issuer, {
      jwks: { keys: published.map((key) => key.privateJwk) },
      clients: [
        ...Object.keys(people).map((clientId) => ({
          client_id: clientId,
          client_secret: secretOf(clientId),
          grant_types: ['client_credentials'],
          redirect_uris: [],
          response_types: [],
        })),
        ...siteClients(redirectUris),
      ],
      // Each person signs in by their key on the provider's development login page.
      findAccount: (_ctx: unknown, sub: string) =>
        people[sub] && { accountId: sub, claims: () => ({ sub, ...people[sub]!.claims }) },
      claims: { openid: ['sub'], profile: ['preferred_username', 'name', 'groups'], email: ['email'] },
      // As campus providers do: the ID token carries the profile claims, not only the userinfo endpoint.
      conformIdTokenClaims: false,
      cookies: { keys: ['a-test-provider-cookie-key'] },
      features: {
        devInteractions: { enabled: true },
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
      ttl: {
        ClientCredentials: 300,
        AccessToken: 300,
        AuthorizationCode: 60,
        IdToken: 300,
        Interaction: 600,
        Session: 3600,
        Grant: 3600,
      },
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
      const now = Math.floor(Date.now() / 1000)
      return signWith({ iss: issuer, aud: AUDIENCE, iat: now, exp: now + 300, ...claims }, alg, 'at+jwt')
    },

    /** From now on, the token endpoint answers ID tokens with `edit`ed claims, signed with its key (null: as issued). */
    editIdTokens(edit: IdTokenEdit | null): void {
      editIdTokens = edit
    },

    /**
     * A person's browser at the provider, scripted: follows `authorizationUrl` through the
     * development login page (as `login`) and the consent page, and answers the URL the provider
     * sends them back to (the site's callback, with its code and state), without visiting it.
     */
    logIn: (authorizationUrl: string | URL, login: string) => logIn(issuer, new URL(authorizationUrl), login),

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

/** Replaces the ID token in the token endpoint's answer about to be sent on `response` by one with edited claims. */
function reissueIdToken(response: ServerResponse, edit: IdTokenEdit, sign: (claims: JWTPayload) => Promise<string>) {
  const end = response.end.bind(response) as (body?: unknown) => ServerResponse
  response.end = ((body?: unknown) => {
    const answer = response.statusCode === 200 && body ? JSON.parse(String(body)) : null
    if (!answer?.id_token) return end(body)
    const edited = edit(decodeJwt(answer.id_token))
    void (edited instanceof Promise ? edited : sign(edited)).then((idToken) => {
      const text = JSON.stringify({ ...answer, id_token: idToken })
      response.setHeader('content-length', Buffer.byteLength(text))
      end(text)
    })
    return response
  }) as ServerResponse['end']
}

/** Follows the provider's redirects and submits its login and consent forms, keeping its cookies, until it sends the browser elsewhere. */
async function logIn(issuer: string, start: URL, login: string): Promise<URL> {
  const cookies = new Map<string, string>()
  let url = start
  let form: URLSearchParams | null = null
  for (let hop = 0; hop < 20; hop++) {
    if (url.origin !== issuer) return url
    const response: Response = await fetch(url, {
      method: form ? 'POST' : 'GET',
      body: form,
      redirect: 'manual',
      headers: { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') },
    })
    for (const cookie of response.headers.getSetCookie()) {
      const pair = cookie.split(';')[0]!
      cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1))
    }
    const location = response.headers.get('location')
    const html: string = location ? '' : await response.text()
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1]
    const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1]
    if (location) [url, form] = [new URL(location, url), null]
    else if (response.ok && action && prompt)
      [url, form] = [new URL(action, url), new URLSearchParams({ prompt, login, password: 'any' })]
    else throw new Error(`the provider answered ${response.status} at ${url.pathname}: ${html.slice(0, 500)}`)
  }
  throw new Error('the provider kept redirecting')
}

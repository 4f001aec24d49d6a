import { describe, expect, it } from 'bun:test'
import { ConfigError, loadConfig } from '../src/config'

// The campus sign-in variables (docs/reference.md §13): off unless both the issuer and the audience are
// set; the claims have their defaults; a half-configured or malformed setting stops the start.

const ISSUER = 'https://sso.example.edu/realms/campus'

describe('CLUBS_OIDC_* configuration', () => {
  it('is off when neither the issuer nor the audience is set', () => {
    expect(loadConfig({}).oidc).toBeNull()
  })

  it('reads the issuer and audience, with the default claims and no admin group', () => {
    expect(loadConfig({ CLUBS_OIDC_ISSUER: ISSUER, CLUBS_OIDC_AUDIENCE: 'clubs-api' }).oidc).toEqual({
      issuer: ISSUER,
      audience: 'clubs-api',
      usernameClaim: 'preferred_username',
      groupsClaim: 'groups',
      adminGroup: null,
      clientId: undefined,
      clientSecret: null,
    })
  })

  it('reads the site’s client id and secret (docs/reference.md §20); without an id, the site signs in as the audience', () => {
    const oidc = loadConfig({
      CLUBS_OIDC_ISSUER: ISSUER,
      CLUBS_OIDC_AUDIENCE: 'clubs-api',
      CLUBS_OIDC_CLIENT_ID: 'clubs-site',
      CLUBS_OIDC_CLIENT_SECRET: 's3cret value',
    }).oidc
    expect(oidc).toMatchObject({ clientId: 'clubs-site', clientSecret: 's3cret value' })
  })

  it('stops the start on a client secret with spaces around it, without repeating the secret', () => {
    const load = () =>
      loadConfig({ CLUBS_OIDC_ISSUER: ISSUER, CLUBS_OIDC_AUDIENCE: 'a', CLUBS_OIDC_CLIENT_SECRET: ' a-secret ' })
    expect(load).toThrow('CLUBS_OIDC_CLIENT_SECRET="<hidden>"')
  })

  it('reads the claims and the admin group', () => {
    const oidc = loadConfig({
      CLUBS_OIDC_ISSUER: ISSUER,
      CLUBS_OIDC_AUDIENCE: 'clubs-api',
      CLUBS_OIDC_USERNAME_CLAIM: 'email',
      CLUBS_OIDC_GROUPS_CLAIM: 'roles',
      CLUBS_OIDC_ADMIN_GROUP: 'Clubs.Admin',
    }).oidc
    expect(oidc).toMatchObject({ usernameClaim: 'email', groupsClaim: 'roles', adminGroup: 'Clubs.Admin' })
  })

  const refused: [string, Record<string, string>, string][] = [
    ['an issuer without an audience', { CLUBS_OIDC_ISSUER: ISSUER }, 'CLUBS_OIDC_AUDIENCE'],
    ['an audience without an issuer', { CLUBS_OIDC_AUDIENCE: 'clubs-api' }, 'CLUBS_OIDC_ISSUER'],
    [
      'an issuer that is not a URL',
      { CLUBS_OIDC_ISSUER: 'sso.example.edu', CLUBS_OIDC_AUDIENCE: 'a' },
      'CLUBS_OIDC_ISSUER',
    ],
    [
      'an issuer that is not http(s)',
      { CLUBS_OIDC_ISSUER: 'ftp://sso.example.edu', CLUBS_OIDC_AUDIENCE: 'a' },
      'CLUBS_OIDC_ISSUER',
    ],
    [
      'an audience with spaces around it',
      { CLUBS_OIDC_ISSUER: ISSUER, CLUBS_OIDC_AUDIENCE: ' a ' },
      'CLUBS_OIDC_AUDIENCE',
    ],
  ]
  for (const [label, env, named] of refused)
    it(`stops the start on ${label}, naming ${named}`, () => {
      expect(() => loadConfig(env)).toThrow(ConfigError)
      expect(() => loadConfig(env)).toThrow(named)
    })
})

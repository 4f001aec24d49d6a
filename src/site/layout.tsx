/** @jsxImportSource preact */
import type { ComponentChildren } from 'preact'

/** Who is looking at a page: a signed-in person, with the token their forms carry; null when nobody is signed in. */
export interface Viewer {
  readonly username: string
  readonly isAdmin: boolean
  /** The session's CSRF token, sent back by every form that changes something. */
  readonly csrf: string
  /** Their account is disabled: the page offers Sign out, and nothing else of theirs. */
  readonly disabled?: boolean
}

export interface PageFrame {
  /** The page's own name; the <title> adds the campus's. */
  readonly title: string
  /** CLUBS_SITE_TITLE. */
  readonly site: string
  readonly viewer: Viewer | null
  /** The path of the page, so the navigation can mark where the person is. */
  readonly path: string
}

/** A hidden field with the session's CSRF token: every POST form of the site carries one. */
export const CsrfField = ({ viewer }: { viewer: Viewer }) => <input type="hidden" name="csrf" value={viewer.csrf} />

function NavLink({ href, path, children }: { href: string; path: string; children: ComponentChildren }) {
  const current = href === '/' ? path === '/' : path.startsWith(href)
  return (
    <li>
      <a href={href} aria-current={current ? 'page' : undefined}>
        {children}
      </a>
    </li>
  )
}

/**
 * Every page of the site: a skip link, the campus's name, the navigation, the page's content
 * (`children`, or `html` already rendered: content kept for every viewer, framed for each).
 */
export function Layout({ frame, children, html }: { frame: PageFrame; children?: ComponentChildren; html?: string }) {
  const { viewer, path } = frame
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${frame.title} · ${frame.site}`}</title>
        <link rel="icon" href="/site/favicon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href="/site/site.css" />
        {/* For feed readers and browsers (docs/reference.md §24): the Atom feed of changes, the directory's search. */}
        <link
          rel="alternate"
          type="application/atom+xml"
          title={`${frame.site}: new and updated clubs`}
          href="/feeds/clubs.atom"
        />
        <link rel="search" type="application/opensearchdescription+xml" title={frame.site} href="/opensearch.xml" />
        <script src="/site/site.js" defer />
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="masthead">
          <a class="brand" href="/">
            {frame.site}
          </a>
          <nav aria-label="Site">
            <ul>
              <NavLink href="/" path={path}>
                Directory
              </NavLink>
              {viewer && !viewer.disabled && (
                <NavLink href="/my-clubs" path={path}>
                  My clubs
                </NavLink>
              )}
              {viewer && !viewer.disabled && (
                <NavLink href="/clubs/new" path={path}>
                  Register a club
                </NavLink>
              )}
              {viewer?.isAdmin && (
                <NavLink href="/review" path={path}>
                  Review
                </NavLink>
              )}
              {viewer?.isAdmin && (
                <NavLink href="/admin/users" path={path}>
                  Users
                </NavLink>
              )}
              {viewer?.isAdmin && (
                <NavLink href="/admin/rounds" path={path}>
                  Re-registration
                </NavLink>
              )}
              <li>
                {viewer ? (
                  <form method="post" action="/sign-out" class="inline">
                    <CsrfField viewer={viewer} />
                    <button type="submit" class="link">
                      Sign out <span class="who">({viewer.username})</span>
                    </button>
                  </form>
                ) : (
                  <a href={`/sign-in?next=${encodeURIComponent(path)}`}>Sign in</a>
                )}
              </li>
            </ul>
          </nav>
        </header>
        {html === undefined ? (
          <main id="main" tabIndex={-1}>
            {children}
          </main>
        ) : (
          <main id="main" tabIndex={-1} dangerouslySetInnerHTML={{ __html: html }} />
        )}
        <footer class="foot">
          <a href="/api/">API</a> · <a href="/swagger">API docs</a>
        </footer>
      </body>
    </html>
  )
}

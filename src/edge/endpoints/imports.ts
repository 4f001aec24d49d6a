import { t } from 'elysia'
// Elysia's t.Integer documents "an integer or a numeric string"; answers hold integers only.
import { Type } from '@sinclair/typebox'
import { ValidationFailed } from '../../domain/errors'
import { MAX_ROWS_SHOWN, type ImportSource } from '../../domain/imports'
import { acceptingReadOnly, ClubPatch, ClubWrite } from '../../model/club'
import { mapOf, schemaRef } from '../docs/components'
import { json, query } from '../docs/openapi'
import { endpoint } from '../endpoint'
import { readImportBody } from '../import-body'

const Counts = t.Object(
  {
    created: Type.Integer({ minimum: 0 }),
    updated: Type.Integer({ minimum: 0 }),
    unchanged: Type.Integer({ minimum: 0 }),
    tags_created: t.Array(t.String(), {
      description: 'The tags the rows named that did not exist: made by the import (a dry run only names them).',
    }),
  },
  { title: 'ImportCounts' },
)

/** A JSON import: club objects in the write shape (read-only fields are ignored; no code: a new club). */
const ImportRows = t.Array(
  t.Object(
    {
      ...acceptingReadOnly(ClubPatch).properties,
      code: t.Optional(ClubWrite.properties.code),
      tags: t.Optional(
        t.Array(t.Union([ClubWrite.properties.tags.items, t.String()]), {
          maxItems: 20,
          description: 'Tags named by id or name, or by a bare name; a name no tag has makes the tag.',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  { minItems: 1, title: 'ClubImport' },
)

const RowErrors = t.Object(
  {
    rows: mapOf(schemaRef('ValidationErrors'), {
      description: `The field errors of each bad row, by its number (from 1; a CSV header not counted): the first ${MAX_ROWS_SHOWN} bad rows.`,
    }),
    rows_not_shown: t.Optional(
      Type.Integer({
        minimum: 1,
        description: `Present when more than ${MAX_ROWS_SHOWN} rows are bad: how many bad rows follow those in rows.`,
      }),
    ),
  },
  { additionalProperties: false },
)

const CSV_EXAMPLE =
  'code,name,subtitle,accepting_members,size,tags\r\ngo-club,Go Club,Stones on a grid,true,1,Games; Social\r\n'

/** `?dry_run=`: true or false (a 400 naming it otherwise). */
function dryRunOf(params: URLSearchParams): boolean {
  const raw = params.get('dry_run')
  if (raw === null || raw === 'false') return false
  if (raw === 'true') return true
  throw new ValidationFailed({ dry_run: ['Use true or false.'] })
}

export const importList = endpoint({
  path: '/api/imports/',
  name: 'Club Import',
  description:
    "Admins create and update clubs in bulk from a CSV file (the list's ?format=csv export, columns as its header names them) or a JSON array of clubs. All rows or none.",
  tag: 'clubs',
  actions: {
    POST: {
      summary: 'Import clubs from CSV or JSON (admins)',
      description:
        'Each row changes the club with its code, as a PATCH of the columns given, or creates it (approved unless the row says approved false; a row without a code creates a club, its code made from the name). Tags the rows name that do not exist are made, and listed in tags_created. Read-only columns are ignored, and the leading \' an export adds to formula-like cells is dropped, so an export imported again changes nothing. Any bad row refuses the whole import: 400 {"rows": {"<row number from 1>": {<field errors>}}}, the first 1,000 bad rows, with "rows_not_shown": <how many more> when there are more. At most 10 MiB, UTF-8.',
      access: 'user',
      query: [query('dry_run', 'true: check every row and report the counts, changing nothing (200).', t.Boolean())],
      body: {
        schema: ImportRows,
        example: [{ code: 'go-club', name: 'Go Club', subtitle: 'Stones on a grid', tags: [{ name: 'Games' }] }],
        read: readImportBody,
        media: {
          'text/csv': { schema: t.String({ description: 'RFC 4180 CSV, a header row first.' }), example: CSV_EXAMPLE },
        },
      },
      responses: {
        200: json(Counts, 'A dry run: what the import would do.'),
        400: json(
          t.Union([RowErrors, schemaRef('ValidationErrors'), schemaRef('Error')]),
          'Nothing was imported: the bad rows with their field errors, or what is wrong with the file as a whole.',
          { rows: { '2': { size: ['"9" is not a valid choice.'] } } },
        ),
        201: json(Counts, 'Imported: how many clubs were created, updated and left unchanged.'),
      },
      errors: [400, 401, 403, 405, 413, 415, 503],
      async handle({ ex, caller, services, body }) {
        const dryRun = dryRunOf(ex.query)
        try {
          const counts = await services.imports.run(caller, body as ImportSource, dryRun)
          return { status: dryRun ? 200 : 201, body: counts }
        } finally {
          // A file of 10 MiB leaves hundreds of MB of garbage, and an idle server may not collect it for long.
          setTimeout(() => Bun.gc(true), 0)
        }
      },
    },
  },
})

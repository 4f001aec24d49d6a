import { t, type TSchema } from 'elysia'
import type { Cell } from '../../domain/cells'
import { headerRefs } from '../docs/components'
import { choice, json, query } from '../docs/openapi'
import type { Answer } from '../endpoint'
import type { Exchange } from '../exchange'
import { spreadsheet } from '../spreadsheets'

/**
 * What a list an officer may take as a CSV file says of itself (a club's subscribers, its
 * interested students): `?format=`, and its 200 answer as JSON items of `item` or the file
 * `<code>-<file>.csv`, a header row of `columns` then a row per `noun`.
 */
export function csvListDoc(item: TSchema, { description, noun, nouns, columns, file }: CsvList) {
  return {
    query: [
      query(
        'format',
        `"json" (default), "api" for the browsable HTML view, or "csv" for a spreadsheet of the same ${nouns}.`,
        choice(['json', 'api', 'csv']),
      ),
    ],
    spreadsheets: ['csv'] as const,
    responses: {
      200: {
        description,
        headers: headerRefs('Content-Disposition'),
        content: {
          ...json(t.Array(item), '').content,
          'text/csv': {
            schema: t.String({
              format: 'binary',
              description: `A header row (${columns.join(',')}), then one row per ${noun}; sent as an attachment (<code>-${file}.csv).`,
            }),
          },
        },
      },
    },
  }
}

interface CsvList {
  readonly description: string
  readonly noun: string
  readonly nouns: string
  readonly columns: readonly string[]
  readonly file: string
}

/** The list as JSON, or with `?format=csv` its `table` as the file `<code>-<file>.csv`. */
export function csvListAnswer(
  ex: Exchange,
  items: unknown,
  table: () => Cell[][][],
  code: string,
  file: string,
): Answer | Promise<Answer> {
  if (ex.format !== 'csv') return { status: 200, body: items }
  return spreadsheet('csv', table(), `${code}-${file}`).then((made) => ({
    status: 200,
    body: made.body,
    headers: made.headers,
  }))
}

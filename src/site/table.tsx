/** @jsxImportSource preact */
import type { ComponentChildren } from 'preact'

/** A plain table of rows under column headings, scrolling inside its own box on a narrow screen. */
export function Table({ head, rows }: { head: readonly string[]; rows: readonly (readonly ComponentChildren[])[] }) {
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            {head.map((heading) => (
              <th scope="col">{heading}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((cells) => (
            <tr>
              {cells.map((cell) => (
                <td>{cell}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

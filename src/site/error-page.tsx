/** @jsxImportSource preact */

/** What a person reads when a page cannot be shown: the status in words, and the reason (error-answer.ts). */
export function ErrorPage({ title, reason }: { title: string; reason: string }) {
  return (
    <>
      <h1>{title}</h1>
      <p>{reason}</p>
      <p>
        <a href="/">Back to the directory</a>
      </p>
    </>
  )
}
